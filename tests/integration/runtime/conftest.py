"""Runtime test fixtures on top of tests/conftest.py (``kafka_bootstrap``, ``database_url``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.integration.runtime.helpers import create_topics, delete_topics, new_prefix


@pytest.fixture
def topics(kafka_bootstrap: str) -> Iterator[Callable[..., str]]:
    """``topics(*short_names, partitions=4)`` creates ``<prefix><name>`` topics under a fresh
    prefix, returns the prefix, and deletes them after the test."""
    made: list[str] = []

    def make(*names: str, partitions: int = 4) -> str:
        prefix = new_prefix()
        full = [f"{prefix}{n}" for n in names]
        create_topics(kafka_bootstrap, full, partitions)
        made.extend(full)
        return prefix

    yield make
    if made:
        delete_topics(kafka_bootstrap, made)
