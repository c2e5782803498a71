"""Stored and received text, printed as text: never as markup, never as terminal control.

Facts, Kafka keys and payloads, model replies and error messages come from users, models
and other programs. :class:`SafeConsole` renders every string literally (no rich markup,
no ``:emoji:`` codes) and escapes control characters (ESC, C1, bidi overrides) to a
visible ``\\x1b`` form, in strings and in :class:`rich.text.Text` alike, so a ``[/x]`` cannot
crash a command, a ``[link=…]`` does not become a link and an escape sequence never
reaches the operator's terminal. Our own styling is passed as ``style=``, never inline.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.style import Style
from rich.text import Span, Text

# C0 controls but newline and tab, DEL, C1 controls, and the bidi controls that reorder
# what a line shows (Trojan Source).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return {9: "\\t", 10: "\\n", 13: "\\r"}.get(code) or (
        f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    )


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab escaped."""
    return _UNSAFE.sub(_escape, text)


def one_line(value: object) -> str:
    """``str(value)`` on one line: newlines and tabs escaped too (a message in a sentence)."""
    return _UNSAFE_ONE_LINE.sub(_escape, str(value))


def safe_text(value: object, style: str | Style = "") -> Text:
    """A table cell or a line part: the value as literal, escaped text."""
    return Text(printable(str(value)), style=style)


def _escaped(text: Text) -> Text:
    """A copy of ``text`` with its control characters escaped and its spans kept in place."""
    plain = text.plain
    if _UNSAFE.search(plain) is None:
        return text
    moved = [0]  # moved[i]: where character i starts in the escaped text
    parts = []
    for char in plain:
        part = printable(char)
        parts.append(part)
        moved.append(moved[-1] + len(part))
    spans = [Span(moved[s.start], moved[s.end], s.style) for s in text.spans]
    copy = text.copy()
    copy.plain = "".join(parts)
    copy.spans = spans
    return copy


class SafeConsole(Console):
    """A rich Console that prints every string and Text literally and escaped."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, emoji=False, highlight=False, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        # Tables, titles and print() turn strings into Text here: markup stays off even
        # where a caller asks for it.
        kwargs.update(markup=False, emoji=False)
        return super().render_str(printable(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Any:
        # Every nested renderable (a table's cells, a panel's body) passes through here.
        if isinstance(renderable, Text):
            renderable = _escaped(renderable)
        segments: Any = super().render(renderable, options)
        return segments
