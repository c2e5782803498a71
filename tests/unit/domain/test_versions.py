"""What a newer version of an episode takes back (streams/domain/versions.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from streams.domain.guards import Claim
from streams.domain.quotes import check_quotes
from streams.domain.versions import EarlierStatement, quote_was_doubted, withdrawn
from streams.events import FactKind, Message, Role

AT = datetime(2026, 1, 1, tzinfo=UTC)


def said(*texts: str, assistant: str = "") -> list[Message]:
    out = [
        Message(seq=i + 1, role=Role.USER, content=t, created_at=AT) for i, t in enumerate(texts)
    ]
    if assistant:
        out.append(Message(seq=len(out) + 1, role=Role.ASSISTANT, content=assistant, created_at=AT))
    return out


PARIS = EarlierStatement(1, "I live in Paris")
DOG = EarlierStatement(2, "my dog Rex")


@pytest.mark.parametrize(
    ("now_said", "gone"),
    [
        (said("I live in Paris and my dog Rex is 3"), []),  # restated
        (said("hi", "I live in Paris", "my dog Rex loves it"), []),  # the window grew
        (said("i live in paris!", "my dog Rex"), []),  # the same words, other case
        (said("my dog Rex is 3"), [1]),  # the Paris message was deleted
        (said("I live in Rome", "my dog Rex"), [1]),  # edited
        (said("Maybe I'll live in Paris one day", "my dog Rex"), [1]),  # now a maybe
        (said("I don't live in Paris anymore", "my dog Rex"), [1]),  # now negated
        (said("Vivo en París", "mi perro Rex"), [1, 2]),  # rewritten in another language
        (said("ok", assistant="So you live in Paris with my dog Rex?"), [1, 2]),  # not the user's
        (said(), [1, 2]),  # every message deleted
    ],
)
def test_a_statement_the_newer_version_no_longer_makes_is_withdrawn(
    now_said: list[Message], gone: list[int]
) -> None:
    assert withdrawn([PARIS, DOG], now_said) == gone


def test_a_fact_whose_quote_was_doubted_tells_nothing_by_its_absence() -> None:
    doubted = [
        EarlierStatement(
            3, "I live in Oslo", "quote 'I live in Oslo' is not in the user's messages"
        ),
        EarlierStatement(4, "", "no source quote given"),
        EarlierStatement(
            5, "yes", "confidence missing; quote 'yes' is too short to show the claim"
        ),
    ]
    assert withdrawn(doubted, said("something else entirely")) == []
    # untrusted for its confidence only: its quote still counts
    low = EarlierStatement(6, "I live in Oslo", "confidence missing: treated as 0")
    assert withdrawn([low], said("something else entirely")) == [6]
    assert withdrawn([low], said("I live in Oslo")) == []


@pytest.mark.parametrize(
    ("reason", "doubted"),
    [
        (None, False),
        ("confidence missing: treated as 0", False),
        ("quote 'x' is not in the user's messages", True),
        ("no source quote given", True),
        ("confidence above 1; quote 'a b' is too short to show the claim", True),
        ("quote 'I live in Oslo' does not mention 'bergen'", True),
    ],
)
def test_which_untrusted_reasons_doubt_the_quote(reason: str | None, doubted: bool) -> None:
    assert quote_was_doubted(reason) is doubted


@pytest.mark.parametrize(
    ("quote", "untrusted"),
    [
        ("I live in Oslo", None),  # not in the messages
        ("", None),  # none given
        ("ok", None),  # too short
        ("move to Oslo", None),  # there, but not the user's statement
        ("I live in Bergen", None),  # does not mention the claim's object
        ("I live in Oslo", "confidence missing"),  # both reasons joined
    ],
)
def test_every_reason_the_quote_check_gives_reads_as_doubted(
    quote: str, untrusted: str | None
) -> None:
    """The reasons check_quotes writes, not copies of them: a reworded reason there
    must still keep a doubted quote from taking a fact back."""
    claim = Claim("user", "lives in", "oslo", FactKind.LITERAL, 0.9, quote, untrusted=untrusted)
    messages = said("I might move to Oslo", "I live in Bergen")
    [checked] = check_quotes([claim], messages)
    assert checked.untrusted is not None
    assert quote_was_doubted(checked.untrusted)
