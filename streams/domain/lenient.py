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
own entry. Only an answer that holds no JSON object at all still fails as a whole. What
finds the JSON in such an answer is streams/domain/json_salvage.py.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, PrivateAttr, ValidationError, model_validator

from streams.domain.json_salvage import (
    MAX_VALUES,
    UNREAD,
    closed_prefix,
    find_json,
    json_values,
    mended_surrogates,
    relaxed,
)

M = TypeVar("M", bound=BaseModel)

# Raw items read per list; the guards keep at most max_facts_per_episode facts anyway.
MAX_ITEMS = 200
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


# The fast parser's refusals that the standard one may still read.
_UNPARSED = frozenset({"json_invalid", "string_unicode"})


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
    mended = mended_surrogates(text)
    values = json_values(mended) or json_values(relaxed(mended))
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
            f" list entries to add to it, or come after the first {MAX_VALUES} read"
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
        if later is UNREAD or not isinstance(later, dict):
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
    data = find_json(mended_surrogates(text))
    if not isinstance(data, dict) or len(data) != 1:
        return None
    [(key, inner)] = data.items()
    return inner if isinstance(inner, dict) and key not in model.model_fields else None


def _listed(text: str) -> dict[str, Any] | None:
    """The object an answer of a one-element array (``[{...}]``) holds, if that is it."""
    data = find_json(mended_surrogates(text))
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        return data[0]
    return None
