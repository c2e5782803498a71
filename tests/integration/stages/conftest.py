"""Fixtures of the extract/summarize stage tests: a fresh database per module and a pool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from streams.store.db import create_pool
from tests.support.db import create_fresh_database


@pytest.fixture(scope="module")
async def es_db_url(database_url: str) -> str:
    return await create_fresh_database(database_url)


@pytest.fixture(scope="module")
async def es_pool(es_db_url: str) -> AsyncIterator[Any]:
    p = await create_pool(es_db_url, max_size=8)
    yield p
    await p.close()
