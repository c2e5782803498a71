"""Each post-processing guard of the seed, and their composition."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from streams.domain import resolution
from streams.domain.confidence import NO_CONFIDENCE, read_confidence
from streams.domain.drops import bound_dropped, drop
from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.domain.guards import (
    Claim,
    KnownEntities,
    apply_guards,
    cap_length,
    clean_claim,
    clean_entities,
    decide_kind,
    ensure_user_entity,
    guard_claims,
    normalise_predicate,
    sanitise_date,
    validate_entity_type,
)
from streams.domain.names import canonical_name, canonical_value, fold
from streams.domain.quotes import quote_found
from streams.domain.users_world import allow_subjects, cap_facts, prune_orphans
from streams.events import DropStage, Entity, EntityType, FactKind
from streams.settings import Settings
from tests.support.clock import date_in, midnight

SETTINGS = Settings()
REL, LIT = FactKind.RELATIONSHIP, FactKind.LITERAL


def claim(s: str, p: str, o: str, kind: FactKind = REL, conf: float = 0.9) -> Claim:
    return Claim(s, p, o, kind, conf)


def raw(s: str, p: str, o: str, **kw: object) -> RawClaim:
    return RawClaim(subject=s, predicate=p, object=o, **kw)  # type: ignore[arg-type]


# --- subject allow-list ----------------------------------------------------------------


def test_allow_list_keeps_user_and_user_linked_subjects() -> None:
    claims = [
        claim("user", "drives", "honda civic"),
        claim("honda civic", "has mileage of", "80000 km", LIT),
        claim("alice", "works at", "google"),
    ]
    kept, dropped = allow_subjects(claims, frozenset())
    assert [c.subject for c in kept] == ["user", "honda civic"]
    assert [(d.reason, d.subject) for d in dropped] == [("subject_not_allowed", "alice")]
    assert dropped[0].stage is DropStage.GUARD


def test_allow_list_accepts_an_entity_the_user_is_linked_to_in_stored_facts() -> None:
    kept, dropped = allow_subjects([claim("sister", "works at", "google")], frozenset({"sister"}))
    assert len(kept) == 1 and not dropped


def test_allow_list_drops_other_tenants_user() -> None:
    kept, dropped = allow_subjects([claim("tenant-b user", "lives in", "paris")], frozenset())
    assert not kept and dropped[0].subject == "tenant-b user"


def test_allow_list_does_not_count_a_literal_as_a_link() -> None:
    # "user likes → alice" as a literal value is no edge, so alice stays outside.
    claims = [claim("user", "likes", "alice", LIT), claim("alice", "works at", "google")]
    kept, _ = allow_subjects(claims, frozenset())
    assert [c.subject for c in kept] == ["user"]


# --- edge or attribute -----------------------------------------------------------------


def test_relationship_to_unlisted_object_is_demoted_to_literal() -> None:
    out = decide_kind([claim("user", "has movie nights on", "fridays", REL)], frozenset({"user"}))
    assert out[0].kind is LIT


def test_literal_naming_a_listed_entity_is_promoted_to_relationship() -> None:
    out = decide_kind(
        [claim("user", "bought", "honda civic", LIT)], frozenset({"user", "honda civic"})
    )
    assert out[0].kind is REL


def test_seed_movie_nights_demoted_without_phantom_entity() -> None:
    graph = RawGraph(
        entities=[RawEntity(name="user", type="PERSON")],
        relationships=[raw("user", "has movie nights on", "fridays", confidence=0.9)],
    )
    entities, facts, _ = apply_guards(graph, KnownEntities(), SETTINGS)
    assert [(f.triple, f.kind) for f in facts] == [
        (("user", "has movie nights on", "fridays"), LIT)
    ]
    assert [e.name for e in entities] == ["user"]  # no "fridays" entity row


def test_seed_bought_honda_civic_promoted() -> None:
    graph = RawGraph(
        entities=[RawEntity(name="Honda Civic", type="VEHICLE")],
        literalFacts=[raw("user", "bought", "Honda Civic", confidence=0.9)],
    )
    entities, facts, _ = apply_guards(graph, KnownEntities(), SETTINGS)
    assert [(f.triple, f.kind) for f in facts] == [(("user", "bought", "honda civic"), REL)]
    assert {(e.name, e.type) for e in entities} == {
        ("user", EntityType.PERSON),
        ("honda civic", EntityType.VEHICLE),
    }


def test_literal_naming_a_stored_entity_is_promoted_and_the_entity_joins_the_graph() -> None:
    graph = RawGraph(literalFacts=[raw("user", "bought", "honda civic")])
    known = KnownEntities(types={"honda civic": EntityType.VEHICLE})
    entities, facts, _ = apply_guards(graph, known, SETTINGS)
    assert facts[0].kind is REL
    assert Entity(name="honda civic", type=EntityType.VEHICLE) in entities


# --- orphan pruning, types, synthetic user ------------------------------------------------


def test_orphan_entities_are_pruned_and_reported() -> None:
    entities = [Entity(name=n, type=EntityType.THING) for n in ("user", "acme", "red")]
    kept, dropped = prune_orphans(entities, [claim("user", "works at", "acme")])
    assert [e.name for e in kept] == ["user", "acme"]
    assert [(d.reason, d.subject) for d in dropped] == [("orphan_entity", "red")]


def test_no_facts_means_no_entities_at_all() -> None:
    kept, _ = prune_orphans([Entity(name="user", type=EntityType.PERSON)], [])
    assert kept == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ORG", EntityType.ORG),
        (" person ", EntityType.PERSON),
        ("organization", EntityType.ORG),
        ("SPACESHIP", EntityType.THING),
        ("", EntityType.THING),
    ],
)
def test_entity_type_validation(given: str, expected: EntityType) -> None:
    assert validate_entity_type(given) is expected


def test_clean_entities_canonicalises_and_merges_names() -> None:
    entities, dropped = clean_entities(
        [
            RawEntity(name="  Honda   Civic ", type="VEHICLE"),
            RawEntity(name="honda civic", type="THING"),
            RawEntity(name="", type="PLACE"),
            RawEntity(name="User", type="THING"),
        ]
    )
    assert [(e.name, e.type) for e in entities] == [
        ("honda civic", EntityType.VEHICLE),
        ("user", EntityType.PERSON),
    ]
    assert [d.reason for d in dropped] == ["invalid_entity_name"]


def test_synthetic_user_entity_added_when_missing() -> None:
    out = ensure_user_entity([Entity(name="acme", type=EntityType.ORG)])
    assert out[0] == Entity(name="user", type=EntityType.PERSON)
    assert ensure_user_entity(out) == out  # not added twice


def test_apply_guards_adds_user_entity_the_model_forgot() -> None:
    graph = RawGraph(
        entities=[RawEntity(name="acme", type="ORG")],
        relationships=[raw("user", "works at", "acme")],
    )
    entities, _, _ = apply_guards(graph, KnownEntities(), SETTINGS)
    assert {e.name for e in entities} == {"user", "acme"}


# --- predicate, lengths, confidence, dates, names ----------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Works At", "works at"),
        ("works-at!", "works at"),
        ("  has   car\tbudget of: ", "has car budget of"),
        ("doesn't like", "doesnt like"),
        ("...", ""),
    ],
)
def test_predicate_normalisation(given: str, expected: str) -> None:
    assert normalise_predicate(given) == expected


def test_length_caps_object_and_quote() -> None:
    long = raw("user", "likes", "x" * 900, sourceQuote="q" * 400)
    c, _ = clean_claim(long, LIT, SETTINGS)
    assert c is not None and len(c.object) == 500 and len(c.quote) == 200
    assert cap_length("short", 10) == "short"


def test_a_long_quote_is_cut_between_words_and_still_found() -> None:
    message = "Yes, " + "I sold my old Honda Civic last week " * 8  # the cap falls in "Honda"
    c, _ = clean_claim(raw("user", "sold", "honda civic", sourceQuote=message), LIT, SETTINGS)
    assert c is not None and len(c.quote) <= 200
    assert message.startswith(c.quote) and message[len(c.quote)] == " "  # whole words
    assert quote_found(c.quote, [message])
    cjk = "我在北京工作" * 50
    c, _ = clean_claim(raw("user", "works in", "北京", sourceQuote=cjk), LIT, SETTINGS)
    assert c is not None and len(c.quote) == 200  # no spaces: any character ends a word


def test_empty_predicate_after_normalisation_is_dropped() -> None:
    c, dropped = clean_claim(raw("user", "!!!", "x"), LIT, SETTINGS)
    assert c is None and dropped[0].reason == "empty_field"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (1.004, (1.0, None)),  # above 1 by rounding: clamped
        (1.7, (0.0, "confidence 1.7 is not between 0 and 1")),
        (90, (0.0, "confidence 90 is not between 0 and 1")),  # another scale: not certain
        ("30", (0.0, 'confidence "30" is not between 0 and 1')),
        (1e300, (0.0, "confidence 1e+300 is not between 0 and 1")),
        (-0.2, (0.0, None)),
        (0.42, (0.42, None)),
        (None, (0.0, NO_CONFIDENCE)),
        (float("nan"), (0.0, "confidence nan is not a number")),
        (float("inf"), (0.0, "confidence inf is not a number")),
        (True, (0.0, "confidence true is not a number")),  # JSON true is not certainty
        (False, (0.0, "confidence false is not a number")),
        ("90%", (0.0, 'confidence "90%" is not a number')),
        ("0,9", (0.0, 'confidence "0,9" is not a number')),
        ("high", (0.0, 'confidence "high" is not a number')),
        ([0.9], (0.0, "confidence [0.9] is not a number")),
        (" 0.9 ", (0.9, None)),  # a plain decimal in a string is read
        (1, (1.0, None)),
        (10**400, (0.0, "confidence " + str(10**400)[:40] + " is not a number")),
    ],
)
def test_confidence_is_clamped_and_a_missing_one_is_untrusted(
    given: object, expected: tuple[float, str | None]
) -> None:
    assert read_confidence(given) == expected


@pytest.mark.parametrize(
    ("given", "expected", "rejected"),
    [
        (None, None, False),
        ("null", None, False),
        ("YYYY-MM-DD", None, True),
        ("2026-XX-01", None, True),
        ("next spring", None, True),
        ("2025-13-45", None, True),
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC), False),
        ("2026-03-01T09:30:00+02:00", datetime(2026, 3, 1, 7, 30, tzinfo=UTC), False),
        # Year 1 would be stored as -infinity and read back naive; 9999 at -05:00 overflows.
        ("0001-01-01", None, True),
        ("0999-12-31", None, True),
        ("9999-12-31T23:00:00-05:00", None, True),
        ("1850-06-01", datetime(1850, 6, 1, tzinfo=UTC), False),
        # RFC 3339 allows lower-case t and z.
        ("2026-03-01t09:30:00z", datetime(2026, 3, 1, 9, 30, tzinfo=UTC), False),
        # Not a string at all (a provider that ignores the schema): rejected, not raised.
        (20260301, None, True),
        (True, None, True),
        ({"date": "2026-03-01"}, None, True),
    ],
)
def test_date_sanitisation(given: object, expected: datetime | None, rejected: bool) -> None:
    assert sanitise_date(given) == (expected, rejected)


def test_rejected_date_keeps_the_fact_and_reports_the_date() -> None:
    until = date_in(30)
    c, dropped = clean_claim(
        raw("user", "works at", "acme", validFrom="YYYY-MM-DD", validUntil=until),
        REL,
        SETTINGS,
    )
    assert c is not None and c.valid_from is None
    assert c.valid_until == midnight(until)
    assert [d.reason for d in dropped] == ["invalid_date"]


def test_a_date_that_is_not_a_string_loses_only_itself() -> None:
    graph = RawGraph.model_validate(
        {"relationships": [
            {"subject": "user", "predicate": "works at", "object": "acme", "confidence": 0.9,
             "sourceQuote": "I work at Acme", "validFrom": 20260301, "validUntil": None},
            {"subject": "user", "predicate": "lives in", "object": "berlin", "confidence": 0.9,
             "sourceQuote": "I live in Berlin", "validFrom": {"date": "x"}, "validUntil": True},
        ]}
    )  # fmt: skip
    assert graph.rejected == []
    _, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert sorted(f.object for f in facts) == ["acme", "berlin"]
    assert all(f.valid_from is None and f.valid_until is None for f in facts)
    assert [d.reason for d in dropped].count("invalid_date") == 3


def test_predicates_lose_invisible_characters_and_fold_case_fully() -> None:
    assert normalise_predicate("Works\u200b At") == "works at"
    assert normalise_predicate("WOHNT IN DER STRASSE") == normalise_predicate("wohnt in der Straße")


def test_canonical_names() -> None:
    assert canonical_name("  Honda  CIVIC ") == "honda civic"
    assert canonical_name("The User") == "user"
    assert canonical_name("I") == "user"


# --- cap ---------------------------------------------------------------------------------


def test_cap_keeps_the_most_confident_in_model_order() -> None:
    claims = [claim("user", f"p{i}", f"o{i}", LIT, conf=i / 20) for i in range(15)]
    kept, dropped = cap_facts(claims, 12)
    assert [c.predicate for c in kept] == [f"p{i}" for i in range(3, 15)]
    assert sorted(d.predicate for d in dropped) == ["p0", "p1", "p2"]
    assert {d.reason for d in dropped} == {"over_cap"}


def test_apply_guards_caps_at_max_facts_per_episode() -> None:
    graph = RawGraph(
        literalFacts=[
            raw("user", f"likes thing {i}", f"v{i}", confidence=i / 30) for i in range(20)
        ]
    )
    _, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert len(facts) == 12
    assert min(f.confidence for f in facts) == pytest.approx(8 / 30)
    assert sum(d.reason == "over_cap" for d in dropped) == 8
    assert all("cap of 12 facts" in d.detail for d in dropped if d.reason == "over_cap")


def test_the_first_cap_names_the_cap_the_user_set() -> None:
    many = [raw("user", f"likes thing {i}", f"v{i}", confidence=i / 100) for i in range(60)]
    _, _, dropped = guard_claims(RawGraph(literalFacts=many), {}, SETTINGS)
    capped = [d for d in dropped if d.reason == "over_cap"]
    assert len(capped) == 60 - 48
    assert all("48 most confident" in d.detail and "cap of 12" in d.detail for d in capped)


def test_drops_counted_by_one_stage_stay_counted_when_the_next_bounds_them() -> None:
    first = bound_dropped([drop("invalid_item", f"item {i}") for i in range(100)])
    assert first[-1].detail.startswith("41 more dropped: invalid_item x41")
    later = [drop("subject_not_allowed", f"s{i}") for i in range(10)]
    again = bound_dropped(first + later)
    assert len(again) == 60
    assert again[-1].detail == "51 more dropped: invalid_item x41, subject_not_allowed x10"


# --- composition: the seed's cases together -----------------------------------------------


def test_other_people_and_tenants_are_dropped_and_the_users_world_kept() -> None:
    graph = RawGraph(
        entities=[
            RawEntity(name="alice", type="PERSON"),
            RawEntity(name="google", type="ORG"),
            RawEntity(name="sister", type="PERSON"),
            RawEntity(name="acme", type="ORG"),
        ],
        relationships=[
            raw("alice", "works at", "google"),
            raw("tenant-b user", "lives in", "paris"),
            raw("user", "has sister", "sister"),
            raw("sister", "works at", "acme"),
        ],
    )
    entities, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert {f.triple for f in facts} == {
        ("user", "has sister", "sister"),
        ("sister", "works at", "acme"),
    }
    assert {e.name for e in entities} == {"user", "sister", "acme"}
    assert {d.subject for d in dropped if d.reason == "subject_not_allowed"} == {
        "alice",
        "tenant-b user",
    }
    assert {d.subject for d in dropped if d.reason == "orphan_entity"} == {"alice", "google"}


def test_fact_anchored_on_a_link_lost_to_the_cap_is_dropped() -> None:
    graph = RawGraph(
        entities=[RawEntity(name="honda civic", type="VEHICLE")],
        relationships=[raw("user", "drives", "honda civic", confidence=0.01)],
        literalFacts=[raw("honda civic", "has mileage of", "80000 km", confidence=0.9)]
        + [raw("user", f"likes thing {i}", f"v{i}", confidence=0.5) for i in range(11)],
    )
    _, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert all(f.subject == "user" for f in facts) and len(facts) == 11
    assert any(d.reason == "subject_not_allowed" and d.subject == "honda civic" for d in dropped)


# --- hostile or broken answers lose only what is broken ------------------------------------


def test_every_year_and_any_offset_is_a_date_or_a_rejection_never_an_error() -> None:
    offsets = ["", "Z", "+00:00", "+05:30", "-14:00", "+14:00", "-23:59", "+23:59"]
    for year in range(1, 10000):
        for offset in offsets:
            for text in (f"{year:04d}-01-01T00:00{offset}", f"{year:04d}-12-31T23:59{offset}"):
                moment, rejected = sanitise_date(text)
                assert rejected == (moment is None), text
                assert moment is None or (moment.tzinfo is UTC and 1 <= moment.year <= 9998)
    assert sanitise_date("0001-01-01T00:00+05:00") == (None, True)  # before year 1 in UTC
    assert sanitise_date("9999-12-31T23:00-05:00") == (None, True)  # after 9999 in UTC


def test_unstorable_characters_are_removed_and_the_claim_kept() -> None:
    dirty = raw("us\x00er", "works\x00 at", "ac\ud800me", sourceQuote="I work at\x00 acme",
                confidence=0.9)  # fmt: skip
    c, dropped = clean_claim(dirty, REL, SETTINGS)
    assert c is not None and dropped == []
    assert (c.subject, c.predicate, c.object, c.quote) == ("user", "works at", "acme",
                                                           "I work at acme")  # fmt: skip
    c.to_fact().model_dump_json().encode("utf-8")  # storable: no NUL, no lone surrogate


def test_a_claim_without_a_usable_confidence_is_kept_untrusted_at_zero() -> None:
    graph = RawGraph.model_validate_json(
        '{"entities": [], "literalFacts": ['
        '{"subject": "user", "predicate": "likes", "object": "tea", "sourceQuote": "tea"},'
        '{"subject": "user", "predicate": "likes", "object": "jazz", "confidence": NaN},'
        '{"subject": "user", "predicate": "likes", "object": "cake", "confidence": Infinity},'
        '{"subject": "user", "predicate": "likes", "object": "rain", "confidence": 0.8},'
        '{"subject": "user", "predicate": "likes", "object": "jam", "confidence": true},'
        '{"subject": "user", "predicate": "likes", "object": "figs", "confidence": "90%"}]}'
    )
    _, facts, _ = apply_guards(graph, KnownEntities(), SETTINGS)
    assert [(f.object, f.confidence, f.untrusted) for f in facts] == [
        ("tea", 0.0, NO_CONFIDENCE),
        ("jazz", 0.0, "confidence nan is not a number"),
        ("cake", 0.0, "confidence inf is not a number"),
        ("rain", 0.8, None),
        ("jam", 0.0, "confidence true is not a number"),
        ("figs", 0.0, 'confidence "90%" is not a number'),
    ]


def test_schema_breaking_items_are_dropped_one_by_one_with_their_reason() -> None:
    graph = RawGraph.model_validate({
        "entities": [{"name": "acme", "type": "ORG"}, {"name": 7}],
        "relationships": [{"subject": "user", "predicate": "works at"},
                          {"subject": "user", "predicate": "works at", "object": "acme",
                           "confidence": 0.9}],
        "literalFacts": "none",
    })  # fmt: skip
    entities, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert [f.triple for f in facts] == [("user", "works at", "acme")]
    assert {e.name for e in entities} == {"user", "acme"}
    assert [d.detail for d in dropped if d.reason == "invalid_item"] == [
        "entities[1]: name: Input should be a valid string",
        "relationships[0]: object: Field required",
        "literalFacts: not a list (str)",
    ]


def test_ten_thousand_claims_cost_what_a_big_honest_answer_costs() -> None:
    """A hostile answer of 10,000 claims and entities: capped before the guards, the
    drops bounded and summarised, and the event that carries the rest far below 1 MB."""
    from streams.domain.lenient import MAX_ITEMS
    from streams.events import FactsExtracted

    n = 10_000
    graph = RawGraph.model_validate({
        "entities": [{"name": f"thing {i}", "type": "THING"} for i in range(n)],
        "relationships": [{"subject": f"thing {i}", "predicate": "is near", "object": "x" * 400,
                           "confidence": 0.5, "sourceQuote": "q" * 300} for i in range(n)],
        "literalFacts": [{"subject": "user", "predicate": f"likes {i}", "object": "y" * 600,
                          "confidence": 0.9, "sourceQuote": "z" * 300} for i in range(n)],
    })  # fmt: skip
    assert len(graph.entities) == len(graph.relationships) == len(graph.literalFacts) == MAX_ITEMS
    assert len(graph.rejected) == 3
    entities, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert len(facts) == SETTINGS.max_facts_per_episode
    assert len(dropped) <= 60 and dropped[-1].reason == "more_dropped"
    event = FactsExtracted(
        dataset="d", project_id="p", episode_id="e", source_event_id="s",
        entities=entities, facts=facts, dropped=dropped,
    )  # fmt: skip
    assert len(event.model_dump_json()) < 100_000


def test_over_long_names_and_values_are_dropped_or_cut_one_by_one() -> None:
    graph = RawGraph(
        entities=[RawEntity(name="n" * 5000, type="ORG"), RawEntity(name="acme", type="ORG")],
        relationships=[raw("user", "works at", "acme", confidence=0.9)],
        literalFacts=[raw("s" * 5000, "likes", "tea", confidence=0.9),
                      raw("user", "has bio", "b" * 50_000, confidence=0.9)],
    )  # fmt: skip
    _, facts, dropped = apply_guards(graph, KnownEntities(), SETTINGS)
    assert [(f.subject, f.predicate, len(f.object)) for f in facts] == [
        ("user", "works at", 4), ("user", "has bio", SETTINGS.object_max_chars),
    ]  # fmt: skip
    assert {d.reason for d in dropped} == {"invalid_entity_name", "too_long"}


@pytest.mark.parametrize(
    ("raw_name", "canonical"),
    [
        ("München.", "münchen"),
        ("「東京」", "東京"),
        ("मुंबई।", "मुंबई"),
        ("«الرياض»", "الرياض"),
        ("Acme Corp.", "acme corp"),
        ("C++", "c++"),
        ("My Sister", "user's sister"),
        ("İZMİR", "izmir"),  # Turkish capital dotted I
        ("Izmir", "izmir"),
        ("Straße", "strasse"),  # full case folding: ß and SS are one
        ("STRASSE", "strasse"),
        ("\u200bAcme\u200f", "acme"),  # zero-width space, right-to-left mark
        ("\ufeffBob", "bob"),  # byte-order mark
        ("Ac\u200bme", "acme"),
        ("ΟΔΥΣΣΕΥΣ", "οδυσσευσ"),  # final sigma folded too
    ],
)
def test_one_normaliser_for_names_in_every_script(raw_name: str, canonical: str) -> None:
    assert canonical_name(raw_name) == canonical
    entities, _ = clean_entities([RawEntity(name=raw_name, type="PLACE")])
    assert entities[0].name == canonical
    assert resolution.incoming(entities)[0].name == canonical  # resolution agrees


def test_an_inverted_validity_keeps_the_claim_without_either_date() -> None:
    c, dropped = clean_claim(
        raw("user", "works at", "acme", validFrom="2026-05-01", validUntil="2025-01-01"),
        REL,
        SETTINGS,
    )
    assert c is not None and (c.valid_from, c.valid_until) == (None, None)
    assert [d.reason for d in dropped] == ["invalid_date"]
    assert "before validFrom" in dropped[0].detail
    c.to_fact()  # a valid event


def test_an_end_written_as_the_day_a_fact_starts_is_true_through_that_day() -> None:
    day = date_in(-10)
    for since in (day, f"{day}T18:30:00+02:00"):  # "in Rome on <day>", "from 18:30 that day"
        c, dropped = clean_claim(
            raw("user", "visited", "rome", validFrom=since, validUntil=day), REL, SETTINGS
        )
        assert c is not None and dropped == []
        assert c.valid_until == midnight(day) + timedelta(days=1)
    # An end with a time of day at the start is a period of no time: dropped as inverted.
    at = f"{day}T10:00:00Z"
    c, dropped = clean_claim(
        raw("user", "visited", "rome", validFrom=at, validUntil=at), REL, SETTINGS
    )
    assert c is not None and (c.valid_from, c.valid_until) == (None, None)
    assert [d.reason for d in dropped] == ["invalid_date"] and "at validFrom" in dropped[0].detail
    # A bare day before the start's day is still inverted.
    c, dropped = clean_claim(
        raw("user", "visited", "rome", validFrom=day, validUntil=date_in(-11)), REL, SETTINGS
    )
    assert c is not None and (c.valid_from, c.valid_until) == (None, None)
    assert [d.reason for d in dropped] == ["invalid_date"]


# --- folding across scripts: Turkish ı, Greek accents, apostrophes --------------------------


def _fold_alike(a: str, b: str) -> bool:
    return (fold(a), canonical_name(a), canonical_value(a)) == (
        fold(b), canonical_name(b), canonical_value(b),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("KADIKÖY", "Kadıköy"),  # Turkish dotless ı
        ("DİYARBAKIR", "Diyarbakır"),
        ("IĞDIR", "Iğdır"),
        ("ŞIRNAK", "Şırnak"),
        ("𝚤zmir", "izmir"),  # mathematical dotless ı (NFKC gives ı)
        ("ΑΘΗΝΑ", "Αθήνα"),  # Greek capitals are written without tonos
        ("ΗΡΑΚΛΕΙΟ", "Ηράκλειο"),
        ("ΠΡΩΤΕΪΝΗ", "πρωτεΐνη"),  # dialytika and tonos
        ("ΚΑΪΡΟ", "Κάιρο"),
        ("Αθη\u0301να", "ΑΘΗΝΑ"),  # a combining acute after a Greek letter
        ("ΑΘΗΝΑΙ", "Ἀθῆναι"),  # polytonic breathing and perispomeni
        ("O'Brien", "O’Brien"),  # U+2019
        ("O'Brien", "Oʼbrien"),  # U+02BC
        ("O'Brien", "O‘Brien"),  # U+2018
        ("O'Brien", "O´Brien"),  # U+00B4, which NFKC would split into a space and an accent
        ("D'Angelo's", "D’Angelo’s"),
    ],
)
def test_names_and_values_that_fold_alike(a: str, b: str) -> None:
    assert _fold_alike(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ankara", "antalya"),
        ("José", "Jose"),  # Latin accents keep their meaning
        ("Müller", "Muller"),
        ("São Paulo", "Sao Paulo"),
        ("résumé", "resume"),
        ("Αθήνα José", "ΑΘΗΝΑ Jose"),  # a Latin accent next to Greek is kept
        ("αé", "αe"),
        ("Πάτρα", "Πάρτα"),
        ("O'Brien", "OBrien"),
    ],
)
def test_names_and_values_that_stay_distinct(a: str, b: str) -> None:
    assert not _fold_alike(a, b)


def test_folding_keeps_the_rest_of_the_text() -> None:
    assert fold("ΑΘΗΝΑ") == fold("Αθήνα") == "αθηνα"
    assert fold("Kadıköy") == "kadiköy"
    assert fold("O’Brien") == "o'brien"
    assert canonical_name("‘Acme’") == "acme"  # curly quotes at the edges still stripped
    assert normalise_predicate("Doesn’t Like") == normalise_predicate("doesn't like")


@pytest.mark.parametrize(
    "alias", ["ME", "Me", "me", "I", "i", "MYSELF", "Myself", "THE USER", "User", " ME. "]
)
def test_self_references_in_any_case_are_the_user(alias: str) -> None:
    assert canonical_name(alias) == "user"
    graph = RawGraph(
        entities=[RawEntity(name="sister", type="PERSON")],
        relationships=[
            raw(alias, "has sister", "sister", confidence=0.9),
            raw("sister", "admires", alias, confidence=0.9),
        ],
    )
    _, facts, _ = apply_guards(graph, KnownEntities(), SETTINGS)
    assert {(f.triple, f.kind) for f in facts} == {
        (("user", "has sister", "sister"), REL),
        (("sister", "admires", "user"), REL),
    }


# --- partial dates: a bare year or a year and month --------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2015", datetime(2015, 1, 1, tzinfo=UTC)),
        (" 2015 ", datetime(2015, 1, 1, tzinfo=UTC)),
        ("2015-06", datetime(2015, 6, 1, tzinfo=UTC)),
        ("2015-12", datetime(2015, 12, 1, tzinfo=UTC)),
        ("1000", datetime(1000, 1, 1, tzinfo=UTC)),
        ("9998-12", datetime(9998, 12, 1, tzinfo=UTC)),
    ],
)
def test_a_bare_year_or_year_month_is_its_first_day(given: str, expected: datetime) -> None:
    assert sanitise_date(given) == (expected, False)


@pytest.mark.parametrize(
    "given",
    [
        "YYYY", "YYYY-MM", "XXXX", "2015-MM", "0000", "0000-00", "2015-00", "2015-13",
        "0999", "0999-12", "9999", "9999-01", "2015-6", "201506", "15", "2015-", "-2015",
        "2015-06Z", "2015-06-", "２０１５", "٢٠١٥", "2015 06", "year 2015",
    ],
)  # fmt: skip
def test_partial_date_placeholders_and_junk_are_rejected(given: str) -> None:
    assert sanitise_date(given) == (None, True)


def test_a_claim_since_a_bare_year_keeps_its_date() -> None:
    c, dropped = clean_claim(
        raw("user", "lives in", "berlin", validFrom="2015", validUntil="2024-06"), REL, SETTINGS
    )
    assert dropped == [] and c is not None
    # since the first day of 2015, until June 2024 is over: June is inside
    assert (c.valid_from, c.valid_until) == (
        datetime(2015, 1, 1, tzinfo=UTC), datetime(2024, 7, 1, tzinfo=UTC),
    )  # fmt: skip
    c.to_fact()  # a valid event


@pytest.mark.parametrize(
    ("given", "expected"),
    [("2019", datetime(2020, 1, 1, tzinfo=UTC)), ("2026-03", datetime(2026, 4, 1, tzinfo=UTC)),
     ("2026-12", datetime(2027, 1, 1, tzinfo=UTC)),
     ("2026-03-15", datetime(2026, 3, 15, tzinfo=UTC))],
)  # fmt: skip
def test_a_bare_year_or_month_as_an_end_is_the_first_day_after_it(
    given: str, expected: datetime
) -> None:
    assert sanitise_date(given, end=True) == (expected, False)
    assert sanitise_date("2015-13", end=True) == (None, True)


def test_a_fact_of_one_month_is_true_in_that_month() -> None:
    c, _ = clean_claim(
        raw("user", "lives in", "turin", validFrom="2026-03", validUntil="2026-03"), REL, SETTINGS
    )
    assert c is not None and (c.valid_from, c.valid_until) == (
        datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC),
    )  # fmt: skip
