"""Entity resolution's pure logic: exact reuse, type-aware merges, in-batch aliases, rewrites."""

from __future__ import annotations

from streams.domain import resolution
from streams.domain.entity_rows import EntityNeighbour, EntityRow
from streams.domain.names import canonical_name
from streams.events import Entity, EntityType, Fact, FactKind
from streams.model.fakes.scripted import hashed_vector, vector_at_similarity

DIM = 16
T = 0.88


def ent(name: str, etype: EntityType = EntityType.ORG) -> Entity:
    return Entity(name=name, type=etype)


def rel(subject: str, predicate: str, obj: str) -> Fact:
    return Fact(
        subject=subject, predicate=predicate, object=obj, kind=FactKind.RELATIONSHIP, confidence=0.9
    )


def lit(subject: str, predicate: str, obj: str) -> Fact:
    return Fact(
        subject=subject, predicate=predicate, object=obj, kind=FactKind.LITERAL, confidence=0.9
    )


def test_canonical_name_folds_case_space_and_edge_punctuation() -> None:
    assert canonical_name("Acme Corp") == "acme corp"
    assert canonical_name(" acme   corp. ") == "acme corp"
    assert canonical_name("St. Louis") == "st. louis"
    assert canonical_name("C++") == "c++"


def test_exact_match_is_type_aware_but_thing_and_user_take_any_type() -> None:
    rows = [EntityRow(1, "apple", "ORG"), EntityRow(2, "apple", "FOOD"), EntityRow(3, "user", "X")]
    food, org, thing, user = resolution.incoming(
        [
            ent("apple", EntityType.FOOD),
            ent("Apple"),
            ent("apple", EntityType.THING),
            ent("user", EntityType.PERSON),
        ]
    )
    assert resolution.exact_match(food, rows) == rows[1]
    assert resolution.exact_match(org, rows) == rows[0]
    assert resolution.exact_match(thing, rows) == rows[0]  # the oldest of the same name
    assert resolution.exact_match(user, rows) == rows[2]
    place = resolution.incoming([ent("apple", EntityType.PLACE)])[0]
    assert resolution.exact_match(place, rows) is None


def test_needs_search_skips_exact_user_and_in_batch_repeats() -> None:
    rows = [EntityRow(1, "google", "ORG")]
    items = resolution.incoming(
        [
            ent("user", EntityType.PERSON),
            ent("Google"),
            ent("Acme Corp"),
            ent("acme corp."),
            ent("acme corp", EntityType.THING),
            ent("acme corp", EntityType.PLACE),
        ]
    )
    searched = resolution.needs_search(items, rows)
    assert [(i.name, i.type) for i in searched] == [
        ("acme corp", EntityType.ORG),
        ("acme corp", EntityType.PLACE),
    ]


def _plan(
    entities: list[Entity],
    rows: list[EntityRow],
    vectors: dict[tuple[str, str], list[float]],
    neighbours: dict[tuple[str, str], EntityNeighbour | None],
) -> tuple[list[resolution.Incoming], resolution.Plan]:
    items = resolution.incoming(entities)
    return items, resolution.plan(items, rows, vectors, neighbours, T)


def test_merge_at_or_above_threshold_only() -> None:
    base = hashed_vector("acme", DIM)
    for sim, merged in ((0.87, False), (0.88, True), (0.89, True)):
        vec = vector_at_similarity(base, sim)
        key = ("acme corp", "ORG")
        _, plan = _plan(
            [ent("Acme Corp")], [], {key: vec}, {key: EntityNeighbour(7, "acme", "ORG", sim)}
        )
        target = plan.targets[0]
        if merged:
            assert (target.name, target.entity_id, target.how) == ("acme", 7, "merge")
            assert plan.inserts == []
        else:
            assert (target.name, target.how) == ("acme corp", "insert")
            assert [(n.name, n.type) for n in plan.inserts] == [("acme corp", "ORG")]


def test_second_alias_in_batch_merges_into_the_first_inserted() -> None:
    first = hashed_vector("acme corp", DIM)
    second = vector_at_similarity(first, 0.93)
    other_type = vector_at_similarity(first, 0.99)
    vectors = {
        ("acme corp", "ORG"): first,
        ("acme corporation", "ORG"): second,
        ("acme corporation", "PLACE"): other_type,
    }
    items, plan = _plan(
        [ent("acme corp"), ent("Acme Corporation"), ent("acme corporation", EntityType.PLACE)],
        [],
        vectors,
        dict.fromkeys(vectors),
    )
    assert [(t.name, t.how) for t in plan.targets] == [
        ("acme corp", "insert"),
        ("acme corp", "merge"),
        ("acme corporation", "insert"),  # PLACE never merges into ORG
    ]
    assert [(n.name, n.type) for n in plan.inserts] == [
        ("acme corp", "ORG"),
        ("acme corporation", "PLACE"),
    ]
    ids = {("acme corp", "ORG"): 11, ("acme corporation", "PLACE"): 12}
    entities, _ = resolution.apply(items, plan, ids, [])
    assert [(e.name, e.entity_id, e.raw_name) for e in entities] == [
        ("acme corp", 11, "acme corp"),
        ("acme corp", 11, "Acme Corporation"),
        ("acme corporation", 12, "acme corporation"),
    ]


def test_user_is_inserted_without_embedding_when_missing() -> None:
    items, plan = _plan([ent("user", EntityType.PERSON)], [], {}, {})
    assert [(n.name, n.type, n.embedding) for n in plan.inserts] == [("user", "PERSON", None)]
    entities, _ = resolution.apply(items, plan, {("user", "PERSON"): 5}, [])
    assert entities[0].entity_id == 5


def test_apply_rewrites_subjects_and_objects_and_promotes_a_literal_naming_an_entity() -> None:
    rows = [EntityRow(1, "user", "PERSON"), EntityRow(2, "acme", "ORG")]
    vec = hashed_vector("acme corp", DIM)
    key = ("acme corp", "ORG")
    items, plan = _plan(
        [ent("user", EntityType.PERSON), ent("Acme Corp"), ent("acme corp.")],
        rows,
        {key: vec},
        {key: EntityNeighbour(2, "acme", "ORG", 0.93)},
    )
    facts = [
        rel("user", "works at", "Acme Corp"),
        rel("user", "invested in", "acme corp."),
        lit("Acme Corp", "has headcount of", "500"),
        lit("user", "invested in", "acme corp"),  # names the merged entity: an edge
        lit("user", "has budget of", "500 usd"),  # a value stays a value
    ]
    entities, out = resolution.apply(items, plan, {}, facts)
    assert {(e.name, e.entity_id) for e in entities} == {("user", 1), ("acme", 2)}
    assert [(f.subject, f.object, f.subject_entity_id, f.object_entity_id) for f in out] == [
        ("user", "acme", 1, 2),
        ("user", "acme", 1, 2),
        ("acme", "500", 2, None),
        ("user", "acme", 1, 2),
        ("user", "500 usd", 1, None),
    ]
    rel_, lit_ = FactKind.RELATIONSHIP, FactKind.LITERAL
    assert [f.kind for f in out] == [rel_, rel_, lit_, rel_, lit_]
