import math
import random

import pytest

from streams.domain.vectors import Normed, cosine, similarity


def _vector(rng: random.Random, dim: int) -> list[float]:
    return [rng.uniform(-1.0, 1.0) for _ in range(dim)]


def test_normed_similarity_is_cosine_to_the_last_bit() -> None:
    # The batch passes compare normed vectors while other rules call cosine on the same
    # pairs: a threshold must read the same on both sides of it.
    rng = random.Random(7)
    for dim in (3, 128, 768):
        for _ in range(50):
            a, b = _vector(rng, dim), _vector(rng, dim)
            assert similarity(Normed(a), Normed(b)) == cosine(a, b)


def test_a_normed_vector_compares_the_same_each_time() -> None:
    rng = random.Random(11)
    kept = Normed(_vector(rng, 64))
    others = [_vector(rng, 64) for _ in range(5)]
    first = [similarity(Normed(o), kept) for o in others]
    assert [similarity(Normed(o), kept) for o in others] == first
    assert kept.norm == pytest.approx(math.sqrt(sum(x * x for x in kept.values)))


def test_cosine_of_known_vectors() -> None:
    assert cosine([1.0, 0.0], [1.0, 0.0]) == 1.0
    assert cosine([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert cosine([1.0, 1.0], [-1.0, -1.0]) == pytest.approx(-1.0)
    assert cosine([3.0, 4.0], [4.0, 3.0]) == pytest.approx(24 / 25)


def test_a_zero_or_empty_vector_is_similar_to_nothing() -> None:
    assert cosine([0.0, 0.0], [1.0, 2.0]) == 0.0
    assert cosine([], []) == 0.0
    assert similarity(Normed([0.0, 0.0]), Normed([1.0, 2.0])) == 0.0


def test_vectors_of_different_dimensions_are_an_error() -> None:
    with pytest.raises(ValueError, match="3 and 2 dimensions"):
        cosine([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="2 and 3 dimensions"):
        similarity(Normed([1.0, 2.0]), Normed([1.0, 2.0, 3.0]))
