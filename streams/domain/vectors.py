"""Vector arithmetic the rules need: cosine similarity, in one place."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence


class Normed:
    """A vector and its norm, computed once, when first needed: a vector compared with
    many others (the candidates of one batch) then costs one sum of products per
    comparison, not three."""

    __slots__ = ("_norm", "values")

    def __init__(self, values: Sequence[float]) -> None:
        self.values = values
        self._norm: float | None = None

    @property
    def norm(self) -> float:
        if self._norm is None:
            self._norm = math.sqrt(sum(map(operator.mul, self.values, self.values)))
        return self._norm


def similarity(a: Normed, b: Normed) -> float:
    """Cosine similarity of two normed vectors: the same result, to the last bit, as
    :func:`cosine` of their values."""
    if len(a.values) != len(b.values):
        raise ValueError(f"cosine of vectors of {len(a.values)} and {len(b.values)} dimensions")
    # map keeps the loops in C, and sums in the same order every time: the same result to
    # the last bit, whoever computes it.
    dot = sum(map(operator.mul, a.values, b.values))
    norm = a.norm * b.norm
    return dot / norm if norm else 0.0


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is empty or zero. Vectors of different
    dimensions are a bug (two embedding models mixed), not a dissimilarity: ValueError."""
    if len(a) != len(b):
        raise ValueError(f"cosine of vectors of {len(a)} and {len(b)} dimensions")
    return similarity(Normed(a), Normed(b))
