"""JSON Schema of every topic's payload: the contract for publishers in other languages."""

from __future__ import annotations

import json
from pathlib import Path

from streams.events import TOPIC_PAYLOADS

SCHEMAS_DIR = Path("schemas")


def render_schemas() -> dict[str, str]:
    """File name → JSON text, one per topic (`episodes.completed.schema.json`, ...)."""
    rendered = {}
    for short_topic, model in TOPIC_PAYLOADS.items():
        schema = model.model_json_schema(mode="validation")
        schema["$id"] = f"factstream/{short_topic}.schema.json"
        schema["x-topic"] = f"memory.{short_topic}"
        rendered[f"{short_topic}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return rendered


def export_schemas(directory: Path = SCHEMAS_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        path = directory / name
        path.write_text(text)
        written.append(path)
    return written
