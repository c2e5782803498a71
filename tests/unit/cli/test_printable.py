"""SafeConsole prints stored text literally on a real (forced) terminal: no markup, no
emoji codes, no links, no escape sequence of the data's own."""

from __future__ import annotations

import io

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from streams.cli.printable import SafeConsole, one_line, printable, safe_text

HOSTILE = (
    "[/x] [link=https://evil.example]click[/link] [bold red]loud :smile:"
    " \x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\osc\x1b]8;;\x1b\\ \u202eexe.txt \x9b2J"
)


def terminal() -> tuple[SafeConsole, io.StringIO]:
    buf = io.StringIO()
    return SafeConsole(file=buf, force_terminal=True, color_system="truecolor", width=200), buf


def assert_literal(shown: str) -> None:
    for literal in ("[/x]", "[link=https://evil.example]click[/link]", "[bold red]", ":smile:"):
        assert literal in shown
    assert "\\x1b[31mred\\x1b[0m" in shown and "\\u202e" in shown and "\\x9b2J" in shown
    assert "\x1b]8;" not in shown  # no hyperlink, neither the data's nor a [link=]
    assert "\x1b[31m" not in shown and "\x9b" not in shown and "\u202e" not in shown
    assert "😄" not in shown


def test_strings_texts_titles_and_cells_print_literally() -> None:
    console, buf = terminal()
    table = Table(title=HOSTILE)
    table.add_column(HOSTILE)
    table.add_row(HOSTILE)
    table.add_row(Text(HOSTILE, style="bold"))
    console.print(HOSTILE)
    console.print(HOSTILE, markup=True)  # asking for markup does not turn it on
    console.print(table)
    console.print(Panel(safe_text(HOSTILE), title=safe_text(HOSTILE)))
    shown = buf.getvalue()
    assert_literal(shown)
    assert shown.count("[link=https://evil.example]") >= 6
    assert "\x1b[1m" in shown  # our own styles still reach the terminal


def test_styles_stay_on_their_words_when_text_is_escaped() -> None:
    console, buf = terminal()
    console.print(Text.assemble(("ok ", "green"), ("bad\x1b[2Jword", "red"), " plain"))
    shown = buf.getvalue()
    assert "bad\\x1b[2Jword" in shown and "\x1b[2J" not in shown
    red = shown.index("bad")
    assert "\x1b[31m" in shown[:red] and "plain" in shown[red:]


def test_one_line_keeps_a_message_on_its_line() -> None:
    assert one_line("a\nb\tc\rd\x1be") == "a\\nb\\tc\\rd\\x1be"
    assert printable("a\nb\tc\x1b") == "a\nb\tc\\x1b"  # multi-line text keeps its lines
