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
        "no confidence given; quote 'x' is not in the user's messages",
    ]


def test_normalise_folds_case_width_punctuation_and_marks_in_any_script() -> None:
    assert normalise("  Hello,\u3000WORLD!! ") == "hello world"
    assert normalise("هُوَ") == normalise("هو")
    assert normalise("「東京」") == "東京"
