"""Fencing untrusted chat text inside a prompt.

The transcript is data, never instructions. Three layers keep a hostile message from
escaping the fence:

1. the fence lines carry a per-call random boundary token the transcript cannot know;
2. every message is one JSON-encoded line, so content cannot start a line of its own
   (newlines become ``\\n``) and thus cannot forge a fence line;
3. any occurrence of the boundary's prefix inside content is neutralised anyway.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable

from streams.events import Message

BOUNDARY_PREFIX = "UNTRUSTED-"
# What a boundary-looking string inside content is rewritten to (no longer a boundary).
_NEUTRALISED = "UNTRUSTED_(neutralised)-"


def new_boundary() -> str:
    """A fresh boundary token per call: 128 random bits, unguessable by the transcript."""
    return f"{BOUNDARY_PREFIX}{secrets.token_hex(16)}"


def neutralise(text: str, boundary: str) -> str:
    """Rewrite anything in ``text`` that could pass for a fence line or boundary."""
    text = text.replace(boundary, "[boundary removed]")
    return text.replace(BOUNDARY_PREFIX, _NEUTRALISED)


def fence_messages(messages: Iterable[Message], boundary: str, label: str) -> str:
    """The messages as JSON lines between BEGIN/END lines carrying ``boundary``."""
    lines = [f"<<<BEGIN {label} {boundary}>>>"]
    for m in messages:
        payload = {"seq": m.seq, "role": m.role.value, "content": neutralise(m.content, boundary)}
        # ensure_ascii: control and look-alike characters are escaped, one line each.
        lines.append(json.dumps(payload, ensure_ascii=True))
    lines.append(f"<<<END {label} {boundary}>>>")
    return "\n".join(lines)


def fence_values(values: Iterable[str], boundary: str, label: str) -> str:
    """Stored names/facts (themselves derived from past transcripts) fenced the same way."""
    lines = [f"<<<BEGIN {label} {boundary}>>>"]
    lines.extend(json.dumps(neutralise(v, boundary), ensure_ascii=True) for v in values)
    lines.append(f"<<<END {label} {boundary}>>>")
    return "\n".join(lines)
