"""The guards' silent mends, derived from a raw extract answer (streams/domain/mends.py)."""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import ANY

from streams.domain.graph import RawGraph
from streams.domain.mends import Caps, Mend, derive_mends, read_stored_answer
from streams.settings import Settings


def _claim(**over: Any) -> dict[str, Any]:
    base = {"subject": "user", "predicate": "works at", "object": "acme", "confidence": 0.9,
            "sourceQuote": "I work at Acme", "validFrom": None, "validUntil": None}  # fmt: skip
    return {**base, **over}


def _mends(entities: list[dict[str, str]] | None = None, **lists: Any) -> list[Mend]:
    graph = RawGraph.model_validate(
        {"entities": [{"name": "user", "type": "PERSON"}, *(entities or [])], **lists}
    )
    return derive_mends(graph)


def _one(mends: list[Mend], what: str) -> Mend:
    found = [m for m in mends if m.what == what]
    assert len(found) == 1, mends
    return found[0]


def test_a_clean_answer_has_no_mends() -> None:
    assert _mends([{"name": "Acme", "type": "ORG"}], relationships=[_claim()]) == []


def test_entity_types_unknown_and_aliased() -> None:
    mends = _mends([{"name": "Acme", "type": "company"}, {"name": "Rex", "type": "gizmo"}])
    assert Mend("entity type", "entity acme", "company", "ORG", "an alias of ORG") in mends
    assert Mend("entity type", "entity rex", "gizmo", "THING", "not a known type: THING") in mends


def test_the_user_is_a_person_and_added_when_missing() -> None:
    me = RawGraph.model_validate({"entities": [{"name": "me", "type": "ORG"}]})
    assert derive_mends(me) == [Mend("entity type", "entity user", "ORG", "PERSON", ANY)]
    added = derive_mends(RawGraph.model_validate({"entities": []}))
    assert added == [Mend("entity", "entity user", "", "user (PERSON)", added[0].why)]


def test_predicate_normalised() -> None:
    mend = _one(_mends(literalFacts=[_claim(predicate="Works-At!", object="x")]), "predicate")
    assert (mend.given, mend.stored, mend.item) == ("Works-At!", "works at", "user · works at · x")


def test_object_and_quote_cut_to_their_caps() -> None:
    graph = RawGraph.model_validate({"entities": [], "literalFacts": [
        _claim(object="y" * 40, sourceQuote="word " * 20)]})  # fmt: skip
    # The deployment's caps, not the defaults: a trace shows what its guards did.
    caps = Caps.of(Settings(object_max_chars=10, quote_max_chars=30))
    mends = derive_mends(graph, limits=caps)
    assert _one(mends, "object").stored == "y" * 10
    quote = _one(mends, "quote")
    assert len(quote.stored) <= 30 and quote.why == "cut to 30 chars"
    cut = {"object", "quote"}
    assert not [m for m in derive_mends(graph) if m.what in cut], "within the default caps"


def test_confidence_clamped_or_untrusted() -> None:
    mends = _mends(literalFacts=[_claim(object="a", confidence=-0.2),
                                 _claim(object="b", confidence="90%"),
                                 _claim(object="c", confidence=None),
                                 _claim(object="d", confidence="0.9")])  # fmt: skip
    found = [(m.given, m.stored) for m in mends if m.what == "confidence"]
    assert found == [("-0.2", "0"), ("90%", "0 (untrusted)"), ("null", "0 (untrusted)")]


def test_dates_rejected_and_moved() -> None:
    mends = _mends(literalFacts=[
        _claim(object="a", validFrom="YYYY-MM-DD", validUntil=2019),
        _claim(object="b", validFrom="2015", validUntil="2019-12"),
        _claim(object="c", validFrom="2026-03-03", validUntil="2026-03-03"),
        _claim(object="d", validFrom="2020-01-01", validUntil="2019-01-01"),
    ])  # fmt: skip
    dates = [(m.item[-1], m.what, m.stored) for m in mends if m.what.startswith("valid")]
    assert dates == [
        ("a", "validFrom", "none"), ("a", "validUntil", "none"),
        ("b", "validFrom", "2015-01-01"), ("b", "validUntil", "2020-01-01"),
        ("c", "validUntil", "2026-03-04"),
        ("d", "validFrom", "none"), ("d", "validUntil", "none"),
    ]  # fmt: skip


def test_relationship_demoted_and_literal_promoted() -> None:
    mends = _mends(
        [{"name": "Acme", "type": "ORG"}],
        relationships=[_claim(predicate="likes", object="jazz")],
        literalFacts=[_claim(object="Acme")],
    )
    kinds = [(m.given, m.stored) for m in mends if m.what == "kind"]
    assert kinds == [("relationship", "literal"), ("literal", "relationship to acme")]


def test_a_known_entity_promotes_too_and_dropped_claims_are_not_mends() -> None:
    graph = RawGraph.model_validate({"entities": [{"name": "user", "type": "PERSON"}],
        "literalFacts": [_claim(object="bob"), _claim(subject="", predicate="X!")]})  # fmt: skip
    assert [m.stored for m in derive_mends(graph, known=["bob"])] == ["relationship to bob"]


def test_the_stored_answer_is_read_from_its_text_or_parsed_value() -> None:
    answer = {"entities": [], "relationships": [], "literalFacts": [_claim(confidence=3)]}
    text = "```json\n" + json.dumps(answer) + "\n```"
    for stored in ({"text": text, "parsed": None}, answer, json.dumps(answer)):
        graph = read_stored_answer(stored)
        assert graph is not None and len(graph.literalFacts) == 1
    assert read_stored_answer({"text": "no json"}) is None
    assert read_stored_answer(None) is None
