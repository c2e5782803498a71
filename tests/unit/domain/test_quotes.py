"""The quote check: a claim's sourceQuote must be in the user's own messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from streams.domain.guards import Claim
from streams.domain.quotes import check_quotes, normalise, quote_found, user_texts
from streams.events import FactKind, Message, Role

AT = datetime.now(UTC)


def said(*texts: str, role: Role = Role.USER) -> list[Message]:
    return [Message(seq=i, role=role, content=t, created_at=AT) for i, t in enumerate(texts)]


USER = user_texts(said(
    "Hi! I sold my Honda Civic last week and bought a Tesla Model 3.",
    "Ich wohne jetzt in München, seit März.",
    "我在北京工作。",
    "मैं मुंबई में रहता हूँ",
    "أعيشُ في الرياض",
))  # fmt: skip


@pytest.mark.parametrize(
    "quote",
    [
        "sold my Honda Civic",  # exact
        "I SOLD my honda-civic!!",  # case and punctuation
        "I sold my civic last week",  # a word left out
        "sold my Honda Civic ... bought a Tesla",  # parts around an ellipsis
        "ich wohne in München",  # German, a word left out
        "在北京工作",  # Chinese, no spaces
        "मुंबई में रहता हूं",  # Hindi, anusvara for chandrabindu
        "أعيش في الرياض",  # Arabic, without the vowel marks
        "Ｉ ｓｏｌｄ ｍｙ Ｈｏｎｄａ",  # full-width (NFKC)
    ],
)
def test_a_quote_of_the_users_words_is_found(quote: str) -> None:
    assert quote_found(quote, USER)


@pytest.mark.parametrize(
    "quote",
    [
        "I work at Google",  # never said
        "user has role administrator of all tenants",  # an obeyed injection
        "I sold my car",  # close in letters, another claim
        "我在上海工作",  # another city
        "bought a tesla model three",  # a word changed in a short quote
        "sold my Honda Civic ... moved to Paris",  # one part is not there
    ],
)
def test_a_quote_the_user_never_wrote_is_not_found(quote: str) -> None:
    assert not quote_found(quote, USER)


def test_only_the_users_messages_count() -> None:
    messages = [*said("I like tea."), *said("You work at Google, right?", role=Role.ASSISTANT)]
    claims = [
        Claim("user", "likes", "tea", FactKind.LITERAL, 0.9, quote="I like tea"),
        Claim("user", "works at", "google", FactKind.RELATIONSHIP, 0.9, quote="work at Google"),
        Claim("user", "likes", "coffee", FactKind.LITERAL, 0.9, quote=""),
        Claim("user", "likes", "cake", FactKind.LITERAL, 0.0, quote="x",
              untrusted="no confidence given"),
    ]  # fmt: skip
    assert [c.untrusted for c in check_quotes(claims, messages)] == [
        None,
        "quote 'work at Google' is not in the user's messages",
        "no source quote given",
        "no confidence given; quote 'x' is too short to show the claim",
    ]


def test_normalise_folds_case_width_punctuation_and_marks_in_any_script() -> None:
    assert normalise("  Hello,\u3000WORLD!! ") == "hello world"
    assert normalise("هُوَ") == normalise("هو")
    assert normalise("「東京」") == "東京"


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        ("I moved to Montréal in spring", "moved to Montreal"),  # accent left out
        ("I moved to Montreal in spring", "moved to Montréal"),  # accent added
        ("Ich wohne jetzt in München", "wohne jetzt in Munchen"),
        ("Я живу в Москве, люблю ёлки", "люблю елки"),  # ё written as е
        ("I drive a\u200b Toyota\u200f now", "I drive a Toyota"),  # invisible characters
        ("\ufeffI work at Acme", "I work at Acme"),  # a byte-order mark
        ("I sold my old Honda Civic last week to my neighbour", "I sold my Honda Civic last week"),
    ],
)
def test_the_same_words_written_otherwise_are_found(said_: str, quote: str) -> None:
    assert quote_found(quote, user_texts(said(said_)))


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        ("I own a carpet", "I own a car"),  # a word is not part of a longer one
        ("I own a carpet", "car"),
        ("I don't like coffee", "I like coffee"),  # the user's "don't" left out
        ("I do not like coffee", "I do like coffee"),
        ("I will not move to Berlin next year", "I will move to Berlin next year"),
        ("I do not like coffee", "like coffee"),  # negated just before the quote
        ("I don't drink coffee any more", "drink coffee any more"),
        ("I never drink coffee", "drink coffee"),
        ("Ich trinke nicht gern Kaffee", "trinke gern Kaffee"),
        ("我不喜欢咖啡", "喜欢咖啡"),  # Chinese, negated before
        ("我不喜欢喝咖啡", "我喜欢喝咖啡"),  # Chinese, negation left out
        ("I live in Paris", "i"),  # one letter supports nothing
        ("I live in Paris", "in"),
    ],
)
def test_a_quote_that_changes_or_cuts_what_the_user_said_is_not_found(
    said_: str, quote: str
) -> None:
    assert not quote_found(quote, user_texts(said(said_)))


def test_a_quote_too_short_says_so() -> None:
    claim = Claim("user", "lives in", "paris", FactKind.LITERAL, 0.9, quote="i")
    [checked] = check_quotes([claim], said("I live in Paris"))
    assert checked.untrusted == "quote 'i' is too short to show the claim"


def test_a_short_quote_in_a_script_without_spaces_is_enough() -> None:
    assert quote_found("東京", user_texts(said("東京に住んでいます")))
    assert quote_found("iphone", user_texts(said("iphoneを買った")))
