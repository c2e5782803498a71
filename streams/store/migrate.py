"""Versioned SQL migrations: `factstream migrate` applies the ones not yet applied.

Files are `store/migrations/NNN_name.sql`; each runs in its own transaction and is
recorded in `schema_migrations`. The embedding dimension is fixed at first migrate and
recorded in `schema_meta`: a later run with another dimension is refused, because the
vector columns cannot silently change size.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import asyncpg

# Serialises concurrent `migrate` runs (workers starting together).
_MIGRATION_LOCK_KEY = 0x66616374  # "fact"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    folder = resources.files("streams.store") / "migrations"
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            version_text, _, rest = entry.name.partition("_")
            found.append(Migration(int(version_text), rest.removesuffix(".sql"), entry.read_text()))
    return sorted(found, key=lambda m: m.version)


async def migrate(database_url: str, embedding_dim: int) -> list[int]:
    """Apply pending migrations; return the versions applied by this call."""
    conn = await asyncpg.connect(database_url)
    applied_now: list[int] = []
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK_KEY)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        if done:
            await _check_dimension(conn, embedding_dim)
        for migration in load_migrations():
            if migration.version in done:
                continue
            sql = migration.sql.replace("{{EMBEDDING_DIM}}", str(embedding_dim))
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute(
                    "INSERT INTO schema_meta (key, value) VALUES ('embedding_dim', $1)"
                    " ON CONFLICT (key) DO NOTHING",
                    str(embedding_dim),
                )
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                    migration.version,
                    migration.name,
                )
            applied_now.append(migration.version)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK_KEY)
        await conn.close()
    return applied_now


async def _check_dimension(conn: asyncpg.Connection, embedding_dim: int) -> None:
    stored = await conn.fetchval("SELECT value FROM schema_meta WHERE key = 'embedding_dim'")
    if stored is not None and int(stored) != embedding_dim:
        raise RuntimeError(
            f"the database was migrated with embedding_dim={stored}, settings say {embedding_dim};"
            " use the same dimension or a new database"
        )
