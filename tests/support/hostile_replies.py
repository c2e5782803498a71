"""A model answer whose junk the fast JSON parser refuses, and what survives of it."""

from __future__ import annotations

from streams.domain.graph import RawGraph

_DEEP = "[" * 300 + "]" * 300

# An unpaired surrogate escape in one name, junk nested 300 levels deep in another, and
# an honest entity and relationship beside them.
JUNK_IN_PARTS = (
    '{"entities": [{"name": "ac\\ud800me", "type": "ORG"},'
    f' {{"name": {_DEEP}, "type": "ORG"}}, {{"name": "user", "type": "PERSON"}}],'
    ' "relationships": [{"subject": "user", "predicate": "works at", "object": "acme",'
    ' "confidence": 0.9, "sourceQuote": "I work at Acme"}], "literalFacts": []}'
)
_NAMES = ["ac\ufffdme", "user"]
_REJECTED = ["entities[1]: name: Input should be a valid string"]


def assert_only_the_junk_was_lost(graph: RawGraph) -> None:
    """What a provider read of :data:`JUNK_IN_PARTS`: every honest part."""
    assert [e.name for e in graph.entities] == _NAMES
    assert graph.rejected == _REJECTED
    assert [c.object for c in graph.relationships] == ["acme"]
