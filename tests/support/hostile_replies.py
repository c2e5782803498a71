"""A model answer whose junk the fast JSON parser refuses, and what survives of it."""

from __future__ import annotations

_DEEP = "[" * 300 + "]" * 300

# An unpaired surrogate escape in one name, junk nested 300 levels deep in another, and
# an honest entity and relationship beside them.
JUNK_IN_PARTS = (
    '{"entities": [{"name": "ac\\ud800me", "type": "ORG"},'
    f' {{"name": {_DEEP}, "type": "ORG"}}, {{"name": "user", "type": "PERSON"}}],'
    ' "relationships": [{"subject": "user", "predicate": "works at", "object": "acme",'
    ' "confidence": 0.9, "sourceQuote": "I work at Acme"}], "literalFacts": []}'
)
JUNK_IN_PARTS_NAMES = ["ac\ufffdme", "user"]
JUNK_IN_PARTS_REJECTED = ["entities[1]: name: Input should be a valid string"]
