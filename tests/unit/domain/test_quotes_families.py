"""The readers behind today's families of the quote check, one word list at a time.

The corpus (test_quote_corpus.py) holds the sentences; these pin the word-level readers
the rules share, so a change to one list shows where it lands.
"""

from __future__ import annotations

import pytest

from streams.domain.futures import slavic_perfective
from streams.domain.habits import habitual_when, one_off_when
from streams.domain.hearsay import told_of_the_user
from streams.domain.seldom import seldom_after
from streams.domain.wording import tokens, wording


@pytest.mark.parametrize(
    ("word", "perfective"),
    [
        ("перееду", True),
        ("куплю", True),
        ("заведем", True),
        ("znajdę", True),
        ("kupię", True),
        ("прихожу", False),
        ("устаю", False),
        ("wracam", False),
        ("stresuję", False),
        ("живу", False),
    ],
)
def test_a_slavic_perfective_is_told_by_its_prefix_and_ending(word: str, perfective: bool) -> None:
    assert slavic_perfective(tokens(word)[0]) is perfective


def _spans(text: str, quote: str) -> tuple[list[str], int, int, frozenset[int]]:
    said = wording(text)
    part = tokens(quote)
    start = next(i for i in range(len(said.words)) if said.words[i : i + len(part)] == part)
    return said.words, start, start + len(part), said.breaks


@pytest.mark.parametrize(
    ("text", "quote", "habit", "plan"),
    [
        ("Wenn ich gestresst bin, esse ich Schokolade", "esse ich Schokolade", True, False),
        ("Als ik thuiskom van werk, laat ik de hond uit", "laat ik de hond uit", True, False),
        ("Sobald ich den Job habe, ziehe ich nach Berlin", "ziehe ich nach Berlin", False, True),
        ("als ik met pensioen ben ga ik in spanje wonen", "ga ik in spanje wonen", False, True),
        ("Wenn ich müde bin, werde ich früher schlafen", "werde ich früher schlafen", False, False),
        ("Nadat ik verhuisd was, werkte ik in Gent", "werkte ik in Gent", False, False),
    ],
)
def test_a_german_or_dutch_when_clause_is_a_habit_or_a_one_off(
    text: str, quote: str, habit: bool, plan: bool
) -> None:
    words, start, end, breaks = _spans(text, quote)
    assert habitual_when(words, 0, start, end, breaks) is habit
    assert one_off_when(words, 0, start, end, breaks) is plan


@pytest.mark.parametrize(
    ("text", "quote", "told"),
    [
        ("Growing up I was told I was bad at art", "I was bad at art", True),
        ("Dicen que soy muy alto", "soy muy alto", True),
        ("I was told to wait, so I live in a hotel", "I live in a hotel", False),
        ("I was told by my doctor that I'm prediabetic", "I'm prediabetic", False),
        ("Me dicen Pepe y vivo en Sevilla", "vivo en Sevilla", False),
    ],
)
def test_told_with_no_one_named(text: str, quote: str, told: bool) -> None:
    words, start, _, breaks = _spans(text, quote)
    assert told_of_the_user(words, (0, start), breaks, frozenset({"doctor"})) is told


@pytest.mark.parametrize(
    ("text", "quote", "seldom"),
    [
        ("I eat meat rarely.", "I eat meat", True),
        ("I eat meat only rarely.", "I eat meat", True),
        ("Mangio carne raramente.", "Mangio carne", True),
        ("I eat meat, rarely fish.", "I eat meat", False),
        ("I eat meat that I rarely cook.", "I eat meat", False),
    ],
)
def test_how_seldom_right_after_the_quote(text: str, quote: str, seldom: bool) -> None:
    words, _, end, breaks = _spans(text, quote)
    assert seldom_after(words, end, breaks) is seldom
