"""A dead letter's payload, read as `factstream dlq` needs it: shown, and its tenant."""

from __future__ import annotations

import json


def payload_tenant(value: bytes | None) -> str | None:
    """``"<dataset>:<project_id>"`` of a JSON object payload, or None."""
    try:
        data = json.loads(value or b"")
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past json's limit
        return None
    if not isinstance(data, dict):
        return None
    dataset, project = data.get("dataset"), data.get("project_id")
    ok = isinstance(dataset, str) and isinstance(project, str) and dataset and project
    return f"{dataset}:{project}" if ok else None


def render_payload(value: bytes | None, preview_bytes: int = 512) -> tuple[str, str]:
    """(kind, text): pretty JSON, plain UTF-8 text, or a hex preview of binary data."""
    if value is None:
        return "empty", "(no value)"
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        head = value[:preview_bytes]
        rows = [
            f"{i:08x}  {head[i : i + 16].hex(' '):<47}  "
            + "".join(chr(b) if 32 <= b < 127 else "." for b in head[i : i + 16])
            for i in range(0, len(head), 16)
        ]
        more = f"\n... {len(value) - len(head)} more bytes" if len(value) > len(head) else ""
        return "binary (not UTF-8)", "\n".join(rows) + more
    try:
        return "json", json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested past what json can read
        return "text", text
