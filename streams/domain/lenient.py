"""Reading a model's answer item by item: a broken item is set aside, the rest is kept.

A response model whose lists are declared in ``item_models`` validates each list entry on
its own. An entry that breaks its schema (a missing field, a number where a string
belongs) becomes one line in :attr:`ItemByItem.rejected`, saying where and why, and the
other entries survive; a list over ``MAX_ITEMS`` is cut there, the cut reported too, so a
hostile answer of 10,000 items costs no more than a big honest one.

:func:`read_reply` reads the answer's text. Clean JSON goes straight to pydantic's fast
parser. What that parser refuses but a model or gateway still meant as the answer is read
too: a byte-order mark, a markdown code fence, prose before or after the JSON object (the
first complete JSON value is taken; JSON objects after it add their lists to it, and
one that adds none is reported), an unpaired surrogate escape such
as ``"\\ud800"`` (read as U+FFFD), an entry nested deeper than ``MAX_DEPTH`` (read as
null) and an integer too long for Python's int-string limit (read as infinity, which the
field's own validator then rejects or the guards distrust), so the junk costs only its
own entry. Only an answer that holds no JSON object at all still fails as a whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, PrivateAttr, ValidationError, model_validator

M = TypeVar("M", bound=BaseModel)

# Raw items read per list; the guards keep at most max_facts_per_episode facts anyway.
MAX_ITEMS = 200
# Nesting kept when the fast parser refuses an answer: no schema of ours goes past 5.
MAX_DEPTH = 64
_REASON_CHARS = 300


class ItemByItem(BaseModel):
    """A response model whose ``item_models`` lists are read one entry at a time."""

    item_models: ClassVar[dict[str, type[BaseModel]]] = {}
    _rejected: list[str] = PrivateAttr(default_factory=list)

    @property
    def rejected(self) -> list[str]:
        """What was set aside while reading the answer, one reason per entry or list."""
        return self._rejected

    @model_validator(mode="wrap")
    @classmethod
    def _item_by_item(cls, data: Any, handler: Any) -> Any:
        rejected: list[str] = []
        if isinstance(data, dict):
            data = shaped(cls, data)
            lists = {k: read_items(k, data.get(k), m, rejected) for k, m in cls.item_models.items()}
            data = {**data, **lists}
        out = handler(data)
        out._rejected = rejected + out._rejected
        return out


_WRAP_DEPTH = 3  # objects looked into for an answer wrapped in envelopes


def _fold_key(key: str) -> str:
    return re.sub(r"[\s_\-]", "", key).casefold()


def with_field_names(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with keys that name a field of ``model`` in another case or spelling
    ("Relationships", "literal_facts", "source_quote") renamed to it; a list under both
    spellings is read whole."""
    fields = {_fold_key(name): name for name in model.model_fields}
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = key if key in model.model_fields else fields.get(_fold_key(key), key)
        if name in out and isinstance(out[name], list) and isinstance(value, list):
            out[name] = [*out[name], *value]
        elif name not in out or name == key:
            out[name] = value
    return out


def shaped(model: type[BaseModel], data: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``data`` with the model's field names (:func:`with_field_names`); when it names
    none, the first object inside it that does (``{"status": "ok", "result": {...}}``,
    ``{"data": {"graph": {...}}}``), up to a few envelopes deep."""
    named = with_field_names(model, data)
    if depth >= _WRAP_DEPTH or any(name in named for name in model.model_fields):
        return named
    for value in data.values():
        if isinstance(value, dict):
            inner = shaped(model, value, depth + 1)
            if any(name in inner for name in model.model_fields):
                return inner
    return named


def read_items(
    key: str, items: Any, model: type[BaseModel], rejected: list[str]
) -> list[BaseModel]:
    """The entries of ``items`` that validate as ``model``; a reason for each that does not."""
    if items is None:
        return []
    if not isinstance(items, list):
        rejected.append(f"{key}: not a list ({type(items).__name__})")
        return []
    if len(items) > MAX_ITEMS:
        rejected.append(f"{key}: {len(items) - MAX_ITEMS} items over the cap of {MAX_ITEMS}")
    kept: list[BaseModel] = []
    for index, item in enumerate(items[:MAX_ITEMS]):
        if isinstance(item, model):
            kept.append(item)
            continue
        if isinstance(item, dict):
            item = with_field_names(model, item)
        try:
            kept.append(model.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "item"
            reason = f"{key}[{index}]: {where}: {first.get('msg', 'invalid')}"
            rejected.append(reason[:_REASON_CHARS])
    return kept


# An escaped backslash (kept, so a backslash written before "ud800" stays text), a pair of
# surrogate escapes (kept: one character), or an unpaired surrogate, escaped or raw.
_SURROGATES = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|[\ud800-\udfff]"
)


# The fast parser's refusals that the standard one may still read.
_UNPARSED = frozenset({"json_invalid", "string_unicode"})


def _mend_surrogate(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 1:
        return "\ufffd"
    return found if len(found) != 6 else "\\ufffd"


def read_reply(model: type[M], text: str) -> M:
    """``text`` (a model's JSON answer) validated as ``model``; raises ValidationError (a
    ValueError) when it holds no JSON object, or none of that shape. An answer that names
    none of the model's fields but wraps one object in a single key (``{"result":
    {...}}``, ``{"graph": {...}}``), or that is an array of one object, is read from that
    object, not taken as empty or refused."""
    try:
        reply = _read(model, text)
    except ValidationError:
        listed = _listed(text)
        if listed is None:
            raise
        reply = model.model_validate(listed)
    if any(getattr(reply, name) for name in model.model_fields):
        return reply
    inner = _wrapped(text, model)
    return reply if inner is None else model.model_validate(inner)


def _read(model: type[M], text: str) -> M:
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        if not any(e.get("type") in _UNPARSED for e in exc.errors()):
            raise
        refused = exc
    mended = _SURROGATES.sub(_mend_surrogate, text)
    values = _json_values(mended) or _json_values(relaxed(mended))
    cut_off = None
    if not values:
        cut_off = closed_prefix(mended)
        if cut_off is None:
            raise refused from None
        values = [cut_off[0]]
    data, ignored = _merged(values)
    reply = model.model_validate(data)
    if cut_off is not None and isinstance(reply, ItemByItem):
        reply.rejected.append(
            f"the answer is cut off (unfinished JSON after {cut_off[1]} characters): what"
            " followed its last complete entry is lost"
        )
    if ignored and isinstance(reply, ItemByItem):
        reply.rejected.append(
            f"{ignored} JSON value(s) after the answer's first object ignored: they hold no"
            f" list entries to add to it, or come after the first {_MAX_VALUES} read"
        )
    return reply


def _merged(values: list[Any]) -> tuple[Any, int]:
    """One answer from the JSON values a model wrote one after another (a graph split into
    ``{"entities": [...]} {"relationships": [...]}``): the later objects' lists are added
    to the first's. Returns it and how many values added nothing (said, not kept)."""
    first, ignored = values[0], 0
    if not isinstance(first, dict):
        return first, len(values) - 1
    merged = dict(first)
    for later in values[1:]:
        if later is _UNREAD or not isinstance(later, dict):
            ignored += 1
            continue
        lists = {k: v for k, v in later.items()
                 if isinstance(v, list) and v and isinstance(merged.get(k, []), list)}  # fmt: skip
        for key, items in lists.items():
            merged[key] = [*(merged.get(key) or []), *items]
        # An object of empty lists (a sample in the prose) loses nothing when skipped.
        if not lists and any(v not in (None, [], {}, "") for v in later.values()):
            ignored += 1
    return merged, ignored


def _wrapped(text: str, model: type[BaseModel]) -> dict[str, Any] | None:
    """The one object an answer of a single unknown key wraps, if that is what it is."""
    data = _find_json(_SURROGATES.sub(_mend_surrogate, text))
    if not isinstance(data, dict) or len(data) != 1:
        return None
    [(key, inner)] = data.items()
    return inner if isinstance(inner, dict) and key not in model.model_fields else None


def _listed(text: str) -> dict[str, Any] | None:
    """The object an answer of a one-element array (``[{...}]``) holds, if that is it."""
    data = _find_json(_SURROGATES.sub(_mend_surrogate, text))
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        return data[0]
    return None


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


def _find_json(text: str) -> Any:
    """The first complete JSON array or object in ``text``, what precedes and follows it
    ignored, cut to ``MAX_DEPTH``; None when there is none."""
    for at in _starts(text):
        try:
            return _DECODER.raw_decode(cut_deep(text[at:], MAX_DEPTH))[0]
        except (ValueError, RecursionError):
            continue
    return None


_UNREAD = object()  # stands for what _json_values left unread past its bound
# JSON values read after the first: a split answer has a few, never hundreds.
_MAX_VALUES = 8
_MAX_TRIES = 32


def _json_values(text: str) -> list[Any]:
    """The first complete JSON array or object in ``text`` (as :func:`_find_json`), then
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
        while len(values) < _MAX_VALUES and tries < _MAX_TRIES:
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
            values.append(_UNREAD)  # more braces after the bound: said, not read
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
