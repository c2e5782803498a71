"""A fresh, migrated database per test session, so tests never share schema state.

Scripted embeddings in tests have TEST_EMBEDDING_DIM dimensions.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from streams.store.migrate import migrate

TEST_EMBEDDING_DIM = 16


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


async def create_fresh_database(server_url: str, dim: int = TEST_EMBEDDING_DIM) -> str:
    """CREATE DATABASE fs_test_<random> on the server, migrate it, return its URL."""
    name = f"fs_test_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = _with_database(server_url, name)
    await migrate(url, dim)
    return url
