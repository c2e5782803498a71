"""The user's world on resolved names: links in both directions, possessives, aliases."""

from __future__ import annotations

from streams.domain import resolution
from streams.domain.entity_rows import EntityNeighbour, EntityRow
from streams.domain.names import canonical_name
from streams.domain.users_world import allow_subjects, keep_users_world
from streams.events import Entity, EntityType
from streams.model.fakes.scripted import hashed_vector
from tests.support.facts import DIM, lit, rel


def test_a_reversed_edge_links_its_subject_to_the_user() -> None:
    facts = [rel("anna", "is sister of", "user"), rel("anna", "works at", "google")]
    kept, dropped = allow_subjects(facts, frozenset())
    assert kept == facts and dropped == []


def test_a_possessive_name_is_the_users_own() -> None:
    name = canonical_name("My Brother")
    assert name == "user's brother" == canonical_name("the user’s brother")
    kept, _ = allow_subjects([rel(name, "lives in", "paris")], frozenset())
    assert [f.subject for f in kept] == ["user's brother"]
    # "users group" is a name, not a possessive.
    _, dropped = allow_subjects([lit(canonical_name("Users Group"), "meets on", "fridays")],
                                frozenset())  # fmt: skip
    assert [d.reason for d in dropped] == ["subject_not_allowed"]


def test_an_alias_resolved_to_a_stored_linked_entity_is_allowed() -> None:
    """ "civic has mileage of 90000 km" after "user drives honda civic" was stored."""
    rows = [EntityRow(1, "user", "PERSON"), EntityRow(7, "honda civic", "VEHICLE")]
    items = resolution.incoming([Entity(name="civic", type=EntityType.VEHICLE)])
    facts = [lit("civic", "has mileage of", "90000 km")]
    vectors = {("civic", "VEHICLE"): hashed_vector("civic", DIM)}
    near = {("civic", "VEHICLE"): EntityNeighbour(7, "honda civic", "VEHICLE", 0.93)}
    plan = resolution.plan(items, rows, vectors, near, 0.88)
    entities, renamed = resolution.rename(items, plan, facts)
    entities, kept, dropped = keep_users_world(entities, renamed, frozenset({"honda civic"}), 12)
    assert [(f.subject, f.subject_entity_id) for f in kept] == [("honda civic", 7)]
    assert dropped == []
    # Without the stored link the same alias is outside the user's world.
    _, kept, dropped = keep_users_world(entities, renamed, frozenset(), 12)
    assert kept == [] and [d.reason for d in dropped] == ["subject_not_allowed", "orphan_entity"]


def test_a_probe_resolves_an_unlisted_subject_and_promotes_a_literal() -> None:
    rows = [EntityRow(3, "acme corp", "ORG")]
    facts = [lit("acme corporation", "has headcount of", "500"),
             lit("user", "owns shares of", "acme corporation"),
             lit("user", "has car budget of", "20000 usd")]  # fmt: skip
    probes = resolution.probes(facts, [])
    assert [(p.name, p.probe, p.search_type) for p in probes] == [("acme corporation", True, "*")]
    key = ("acme corporation", "THING")
    plan = resolution.plan(
        probes, rows, {key: hashed_vector("acme corporation", DIM)},
        {key: EntityNeighbour(3, "acme corp", "ORG", 0.95)}, 0.88,
    )  # fmt: skip
    assert plan.inserts == []  # a probe is never inserted
    entities, out = resolution.rename(probes, plan, facts)
    assert [(e.name, e.entity_id) for e in entities] == [("acme corp", 3)]
    assert [(f.triple, f.kind.value) for f in out] == [
        (("acme corp", "has headcount of", "500"), "literal"),
        (("user", "owns shares of", "acme corp"), "relationship"),
        (("user", "has car budget of", "20000 usd"), "literal"),  # a value: never probed
    ]
