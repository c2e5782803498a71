"""A fresh, migrated database per test or session, so tests never share schema state.

The session drops them again at its end (``drop_created_databases``), so a server that
outlives it, one given by the environment or a developer's dev server, does not collect a
database per run. Scripted embeddings in tests have TEST_EMBEDDING_DIM dimensions.
"""

from __future__ import annotations

import asyncpg

from streams.store.databases import create_database, drop_database, unique_name

TEST_EMBEDDING_DIM = 16
_CREATED: list[tuple[str, str]] = []  # (server URL, database name), this session's


async def create_fresh_database(
    server_url: str, dim: int | None = TEST_EMBEDDING_DIM, prefix: str = "fs_test"
) -> str:
    """CREATE DATABASE <prefix>_<random> on the server, migrate it (unless ``dim`` is
    None), return its URL."""
    name = unique_name(prefix)
    url = await create_database(server_url, name, embedding_dim=dim)
    _CREATED.append((server_url, name))
    return url


async def drop_created_databases(server_url: str) -> list[str]:
    """Drop the databases this session created on ``server_url``; returns the names of
    those that could not be dropped (the server gone already, say)."""
    left: list[str] = []
    for made in [c for c in _CREATED if c[0] == server_url]:
        _CREATED.remove(made)
        try:
            await drop_database(*made)
        except (OSError, asyncpg.PostgresError):
            left.append(made[1])
    return left
