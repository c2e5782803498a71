"""JSON values found in a model's answer where a strict parser sees none.

A model or gateway wraps its JSON in prose, a markdown code fence or a byte-order mark,
splits it into several objects, writes comments and trailing commas, stops mid-way at its
token limit, nests too deep for a parser's stack or escapes half a surrogate pair. The
functions here find the JSON values in such a text, bounded so that a hostile text of
many braces costs a few reads; streams/domain/lenient.py validates what they find.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

# Nesting kept when the fast parser refuses an answer: no schema of ours goes past 5.
MAX_DEPTH = 64


# An escaped backslash (kept, so a backslash written before "ud800" stays text), a pair of
# surrogate escapes (kept: one character), or an unpaired surrogate, escaped or raw.
_SURROGATES = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|[\ud800-\udfff]"
)


def _mend_surrogate(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 1:
        return "\ufffd"
    return found if len(found) != 6 else "\\ufffd"


def mended_surrogates(text: str) -> str:
    """``text`` with each unpaired surrogate, escaped or raw, read as U+FFFD."""
    return _SURROGATES.sub(_mend_surrogate, text)


def _read_int(digits: str) -> int | float:
    """A JSON integer; one past Python's int-string limit (4300 digits) is infinite, so
    it costs its own field rather than the whole answer."""
    try:
        return int(digits)
    except ValueError:
        return float("-inf") if digits.startswith("-") else float("inf")


_DECODER = json.JSONDecoder(parse_int=_read_int)
# A markdown code fence opening a line (a raw newline cannot sit inside a JSON string).
_FENCE = re.compile(r"^[ \t]*```[^`\n]*\n", re.MULTILINE)
_OPENER = re.compile(r"[\[{]")


def _starts(text: str) -> list[int]:
    """Where the answer's JSON may begin, likeliest first: the first bracket (a list that
    starts there is taken as the answer, so it is still refused as not an object), the
    first brace, and both again after the first code fence, for prose before the fence
    that holds brackets of its own."""
    fence = _FENCE.search(text)
    starts: list[int] = []
    for begin in (0, fence.end()) if fence else (0,):
        bracket = _OPENER.search(text, begin)
        starts += [bracket.start(), text.find("{", begin)] if bracket else []
    return [at for at in dict.fromkeys(starts) if at >= 0]


def find_json(text: str) -> Any:
    """The first complete JSON array or object in ``text``, what precedes and follows it
    ignored, cut to ``MAX_DEPTH``; None when there is none."""
    for at in _starts(text):
        try:
            return _DECODER.raw_decode(cut_deep(text[at:], MAX_DEPTH))[0]
        except (ValueError, RecursionError):
            continue
    return None


UNREAD = object()  # stands for what json_values left unread past its bound
# JSON values read after the first: a split answer has a few, never hundreds.
MAX_VALUES = 8
_MAX_TRIES = 32


def json_values(text: str) -> list[Any]:
    """The first complete JSON array or object in ``text`` (as :func:`find_json`), then
    the JSON objects that follow it, prose between them ignored; bounded, so a hostile
    text of many braces costs a few reads."""
    for at in _starts(text):
        cut = cut_deep(text[at:], MAX_DEPTH)
        try:
            first, end = _DECODER.raw_decode(cut)
        except (ValueError, RecursionError):
            continue
        values = [first]
        tries = 0
        while len(values) < MAX_VALUES and tries < _MAX_TRIES:
            at_next = cut.find("{", end)
            if at_next < 0:
                break
            tries += 1
            try:
                value, end = _DECODER.raw_decode(cut, at_next)
            except (ValueError, RecursionError):
                end = at_next + 1
                continue
            values.append(value)
        if cut.find("{", end) >= 0:
            values.append(UNREAD)  # more braces after the bound: said, not read
        return values
    return []


_CLOSER = {"{": "}", "[": "]"}


def closed_prefix(text: str) -> tuple[Any, int] | None:
    """An answer cut off mid-way (a model's token limit), read up to its last complete
    entry: the text to the last bracket that closed inside the outer object, with the
    brackets still open closed. Returns the value and where it was cut; None when nothing
    complete is there."""
    begin = text.find("{")
    if begin < 0:
        return None
    cut = cut_deep(text[begin:], MAX_DEPTH)
    stack: list[str] = []
    last: tuple[int, str] | None = None  # (cut after, closers then)
    for at, ch in _brackets(cut):
        if ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif stack:
            stack.pop()
            if not stack:
                return None  # complete after all: not a cut-off answer
            last = (at + 1, "".join(reversed(stack)))
    if last is None:
        return None
    try:
        return _DECODER.decode(cut[: last[0]] + last[1]), begin + last[0]
    except (ValueError, RecursionError):
        return None


_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def relaxed(text: str) -> str:
    """``text`` without what JSON forbids and models still write: comments (``// ...``,
    ``/* ... */``) and trailing commas (``[1, 2,]``), outside strings."""
    pieces: list[str] = []
    at, length = 0, len(text)
    in_string = escaped = False
    while at < length:
        ch = text[at]
        if in_string:
            in_string = escaped or ch != '"'
            escaped = not escaped and ch == "\\"
        elif ch == '"':
            in_string = True
        elif text.startswith("//", at):
            end = text.find("\n", at)
            at = length if end < 0 else end
            continue
        elif text.startswith("/*", at):
            end = text.find("*/", at + 2)
            at = length if end < 0 else end + 2
            continue
        pieces.append(ch)
        at += 1
    return _TRAILING_COMMA.sub(r"\1", "".join(pieces))


def _brackets(text: str) -> Iterator[tuple[int, str]]:
    """Each bracket of ``text`` (JSON) outside its strings, and where it is."""
    in_string = escaped = False
    for at, ch in enumerate(text):
        if in_string:
            in_string = escaped or ch != '"'
            escaped = not escaped and ch == "\\"
        elif ch == '"':
            in_string = True
        elif ch in "[]{}":
            yield at, ch


def cut_deep(text: str, limit: int) -> str:
    """``text`` (JSON) with every array or object nested deeper than ``limit`` replaced by
    null, so that no parser runs out of stack on it; strings are left as they are."""
    pieces: list[str] = []
    depth, kept_to, cut_from = 0, 0, -1
    for at, ch in _brackets(text):
        if ch in "[{":
            depth += 1
            if depth == limit + 1:
                cut_from = at
        elif ch in "]}":
            if depth == limit + 1:
                pieces += [text[kept_to:cut_from], "null"]
                kept_to = at + 1
            depth -= 1
    return "".join(pieces) + text[kept_to:] if pieces else text
