"""A fresh, migrated database per test or session, so tests never share schema state.

Scripted embeddings in tests have TEST_EMBEDDING_DIM dimensions.
"""

from __future__ import annotations

from streams.store.databases import create_database, unique_name

TEST_EMBEDDING_DIM = 16


async def create_fresh_database(
    server_url: str, dim: int | None = TEST_EMBEDDING_DIM, prefix: str = "fs_test"
) -> str:
    """CREATE DATABASE <prefix>_<random> on the server, migrate it (unless ``dim`` is
    None), return its URL."""
    return await create_database(server_url, unique_name(prefix), embedding_dim=dim)
