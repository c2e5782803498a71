"""Vector arithmetic the rules need: cosine similarity, in one place."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is empty or zero. Vectors of different
    dimensions are a bug (two embedding models mixed), not a dissimilarity: ValueError."""
    if len(a) != len(b):
        raise ValueError(f"cosine of vectors of {len(a)} and {len(b)} dimensions")
    # map keeps the loops in C, and sums in the same order every time: the same result to
    # the last bit, whoever computes it.
    dot = sum(map(operator.mul, a, b))
    norm = math.sqrt(sum(map(operator.mul, a, a))) * math.sqrt(sum(map(operator.mul, b, b)))
    return dot / norm if norm else 0.0
