"""The README's settings table lists every field of streams/settings.py with its default."""

from __future__ import annotations

import re
from pathlib import Path

from streams.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\| `FACTSTREAM_([A-Z0-9_]+)`[^|]*\| `([^`]*)` \| (.+) \|$")


def _default(name: str) -> str:
    field = Settings.model_fields[name]
    value = field.default_factory() if field.default_factory is not None else field.default
    return "unset" if value is None else str(value)


def test_every_setting_is_documented_with_its_default() -> None:
    lines = README.read_text().splitlines()
    rows = {m[1].lower(): m[2] for line in lines if (m := ROW.match(line))}
    assert sorted(rows) == sorted(Settings.model_fields), "README settings table drifted"
    for name, default in rows.items():
        assert default == _default(name), f"{name}: README says {default!r}"
