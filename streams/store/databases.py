"""Creating and dropping whole databases on a server: the demo's, the bench's, the tests'.

One helper for every "fresh database": a name on the server the URL points at, created
(optionally dropped first), migrated unless told otherwise, and dropped again.
"""

from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from streams.store.migrate import migrate

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def database_url_on(server_url: str, name: str) -> str:
    """The URL of database ``name`` on the server ``server_url`` points at."""
    parts = urlsplit(server_url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


async def create_database(
    server_url: str,
    name: str,
    *,
    replace: bool = False,
    embedding_dim: int | None = None,
) -> str:
    """CREATE DATABASE ``name`` (dropping it first when ``replace``); migrated to
    ``embedding_dim`` dimensions unless that is None. Returns its URL."""
    if not _NAME.match(name):
        raise ValueError(f"database name {name!r}: letters, digits and _ only")
    admin = await asyncpg.connect(server_url)
    try:
        if replace:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = database_url_on(server_url, name)
    if embedding_dim is not None:
        await migrate(url, embedding_dim)
    return url


async def drop_database(server_url: str, name_or_url: str) -> None:
    """DROP DATABASE, ending its sessions; a database that is gone already is fine."""
    name = database_name(name_or_url) if "/" in name_or_url else name_or_url
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def enable_vector(url: str) -> str:
    """``CREATE EXTENSION IF NOT EXISTS vector`` on the database; returns the server version."""
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        version: str = await conn.fetchval("SHOW server_version")
        return version
    finally:
        await conn.close()
