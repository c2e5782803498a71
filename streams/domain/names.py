"""The one name normaliser: what the guards, resolution and the prompt context agree on.

An entity name (and the subject and object of a claim) is NFKC-folded, lower-cased,
whitespace-collapsed and stripped of edge punctuation ("Acme Corp." and "acme corp" are
one name; "St. Louis" and "C++" keep their inner punctuation), and every way a model
says "the user" becomes ``user``. Literal values keep their edge punctuation.
"""

from __future__ import annotations

import unicodedata

from streams.events import USER_ENTITY

# How a model may say "the user" when it means the user.
USER_ALIASES = frozenset({"user", "the user", "i", "me", "myself", "the_user"})
_EDGE_PUNCTUATION = " .,;:\"'`()[]{}"


def fold(text: str) -> str:
    """NFKC, lower-cased, whitespace collapsed: how any stored text is compared."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def canonical_name(name: str) -> str:
    """The stored form of an entity name."""
    folded = fold(name)
    stripped = folded.strip(_EDGE_PUNCTUATION) or folded
    return USER_ENTITY if stripped in USER_ALIASES else stripped


def canonical_value(value: str) -> str:
    """The stored form of a literal value: folded, edge punctuation kept."""
    return fold(value)
