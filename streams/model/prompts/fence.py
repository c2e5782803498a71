"""Fencing untrusted chat text inside a prompt.

The transcript is data, never instructions. Three layers keep a hostile message from
escaping the fence:

1. the fence lines carry a per-call random boundary token the transcript cannot know;
2. every message is one JSON-encoded line, so content cannot start a line of its own
   (newlines become ``\\n``) and thus cannot forge a fence line;
3. any occurrence of the boundary's prefix inside content is neutralised anyway.

Text keeps its own script ("München", "北京", "मुंबई" reach the model as written, not as
``\\uXXXX`` runs that cost tokens and blur names the model must reuse exactly). Only what
could break a line or disguise one is escaped: control characters, the Unicode line and
paragraph separators, lone surrogates and the bidirectional overrides.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from typing import Any

from streams.events import Message

BOUNDARY_PREFIX = "UNTRUSTED-"
# What a boundary-looking string inside content is rewritten to (no longer a boundary).
_NEUTRALISED = "UNTRUSTED_(neutralised)-"
# C0/C1 controls (json escapes C0 already), NEL, line/paragraph separators, bidi
# embeddings, overrides and isolates, lone surrogates. Joiners (ZWJ/ZWNJ) are script, kept.
_LINE_BREAKERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def json_line(value: Any) -> str:
    """``value`` as one JSON line in its own script, with line breakers escaped."""
    text = json.dumps(value, ensure_ascii=False)
    return _LINE_BREAKERS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
        lines.append(json_line(payload))
    lines.append(f"<<<END {label} {boundary}>>>")
    return "\n".join(lines)


def fence_values(values: Iterable[str], boundary: str, label: str) -> str:
    """Stored names/facts (themselves derived from past transcripts) fenced the same way."""
    lines = [f"<<<BEGIN {label} {boundary}>>>"]
    lines.extend(json_line(neutralise(v, boundary)) for v in values)
    lines.append(f"<<<END {label} {boundary}>>>")
    return "\n".join(lines)
