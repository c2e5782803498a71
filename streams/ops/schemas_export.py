"""JSON Schema of every topic's payload: the contract for publishers in other languages."""

from __future__ import annotations

import json
from pathlib import Path

from streams.events import TOPIC_PAYLOADS

SCHEMAS_DIR = Path("schemas")
# The dialect pydantic writes; validators pick their rules from it.
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_id(short_topic: str) -> str:
    """The schema's absolute id: a URN, since no server hosts these files."""
    return f"urn:factstream:schema:{short_topic}:v1"


def render_schemas() -> dict[str, str]:
    """File name → JSON text, one per topic (`episodes.completed.schema.json`, ...)."""
    rendered = {}
    for short_topic, model in TOPIC_PAYLOADS.items():
        schema = {"$schema": DIALECT, "$id": schema_id(short_topic)}
        schema |= model.model_json_schema(mode="validation")
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
