"""Connections: one asyncpg pool per process, with pgvector's codec registered.

A server that cannot be reached, a refused login, a missing or unmigrated database and a
vector size other than the settings' are raised as errors that name the (password-free)
address and say what to do, so every command reports them in one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg
from pgvector.asyncpg import register_vector

from streams.errors import ConfigError, InfraError
from streams.store.round_trips import counting_class, round_trips
from streams.store.vector_search import DEFAULT_TUNING, session_settings

__all__ = ["round_trips"]  # re-exported: the worker's metrics read it from here

CONNECT_TIMEOUT_S = 10.0
POOL_CONNECT_TIMEOUT_S = 60.0  # asyncpg's own default, kept for the workers' pools
_HINT = "is it running? Start it (`factstream dev up`) or point FACTSTREAM_DATABASE_URL at it"


class DatabaseUnreachable(InfraError, ConnectionError):
    """No answer from the server (down, wrong host or socket, starting, full). Transient:
    a ConnectionError, so retry loops (the sweeper) treat it as worth another try."""


class DatabaseRefused(InfraError):
    """The server answered but refused: wrong user or password, or no such database."""


class NotMigrated(InfraError):
    """The database lacks factstream's tables or some of its migrations."""


class EmbeddingDimMismatch(ConfigError):
    """FACTSTREAM_EMBEDDING_DIM differs from the size of the database's vector columns."""


def redact_url(url: str) -> str:
    """The URL without its password (in the user part or a ``password=`` parameter)."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        if not parts.password and all(k != "password" for k, _ in query):
            return url
        netloc = parts.netloc
        if parts.password:
            netloc = f"{parts.username or ''}:***@{netloc.rpartition('@')[2]}"
        query = [(k, "***" if k == "password" else v) for k, v in query]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="/:*")))
    except ValueError:
        return "<unparsable database URL>"


def _connect_error(exc: BaseException, url: str, timeout_s: float) -> InfraError | None:
    """The error to raise for a failed connection attempt (None: not a connection failure)."""
    where = f"Postgres at {redact_url(url)}"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        return DatabaseRefused(f"{where}: {exc}; create it, then run `factstream migrate`")
    if isinstance(
        exc, (asyncpg.InvalidPasswordError, asyncpg.InvalidAuthorizationSpecificationError)
    ):
        return DatabaseRefused(
            f"{where} refused the login ({exc}); check the user and password in"
            " FACTSTREAM_DATABASE_URL"
        )
    if isinstance(
        exc,
        (OSError, TimeoutError, asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError),
    ):
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, TimeoutError) and not str(exc):
            reason = f"no answer within {timeout_s:.0f} s"
        return DatabaseUnreachable(f"{where} is unreachable ({reason}); {_HINT}")
    return None


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Release without asyncpg's default reset query.

    The default runs ``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`` on
    every release: one more round trip per acquire, and several acquires per record in
    every stage. Pooled connections never change session state:
    settings are ``SET LOCAL`` / ``set_config(..., true)``, advisory locks are ``_xact_``
    locks, nothing LISTENs or keeps a cursor outside a transaction (the sweeper's session
    lock lives on its own connection, from ``connect``). asyncpg still rolls back a
    transaction left open before it calls this.
    """


async def create_pool(
    database_url: str, *, min_size: int = 1, max_size: int = 10,
    application_name: str | None = None, plans_once: bool = False,
) -> Any:  # fmt: skip
    """An asyncpg pool whose connections speak `vector` and `jsonb` natively and count
    their round trips (streams/store/round_trips.py). ``application_name`` names its
    sessions in pg_stat_activity (workers: their stage). Sessions open with the default
    vector search settings, so searches need no transaction of their own. With
    ``plans_once`` (streams/pipeline.py ``StageSpec.plans_once``) they plan each prepared
    statement once, generically; otherwise Postgres decides per statement."""
    server_settings = session_settings()
    if application_name:
        server_settings["application_name"] = application_name
    if plans_once:
        server_settings["plan_cache_mode"] = "force_generic_plan"
    try:
        return await asyncpg.create_pool(
            database_url, min_size=min_size, max_size=max_size, init=_init_connection,
            reset=_keep_session, server_settings=server_settings,
            connection_class=counting_class(DEFAULT_TUNING),
        )  # fmt: skip
    except Exception as exc:
        if (clear := _connect_error(exc, database_url, POOL_CONNECT_TIMEOUT_S)) is not None:
            raise clear from exc
        raise


async def connect(
    database_url: str, *, codecs: bool = True, timeout_s: float = CONNECT_TIMEOUT_S
) -> Any:
    """A single connection for migrations and one-off commands, with the pool's codecs
    unless ``codecs=False`` (a database without the `vector` extension yet)."""
    try:
        conn = await asyncpg.connect(database_url, timeout=timeout_s)
    except Exception as exc:
        if (clear := _connect_error(exc, database_url, timeout_s)) is not None:
            raise clear from exc
        raise
    if codecs:
        try:
            await _init_connection(conn)
        except Exception as exc:
            await conn.close()
            if isinstance(exc, ValueError) and "vector" in str(exc):  # no `vector` type
                raise NotMigrated(
                    f"the database at {redact_url(database_url)} is not migrated (it has no"
                    " `vector` type); run `factstream migrate` with this FACTSTREAM_DATABASE_URL"
                ) from exc
            raise
    return conn


async def ping(pool: Any, timeout_s: float = 2.5) -> None:
    """Return when the server answers a query on one of the pool's connections (readiness);
    raises (a timeout, a connection error) when it does not."""
    async with pool.acquire(timeout=timeout_s) as conn:
        await conn.fetchval("SELECT 1", timeout=timeout_s)


@dataclass(frozen=True)
class SchemaStatus:
    applied: frozenset[int]  # empty: no schema_migrations table or no row in it
    embedding_dim: int | None  # the size fixed by the first migrate (None: not migrated)


async def schema_status(conn: Any) -> SchemaStatus:
    """Which migrations the database holds, and the vector size it was migrated with."""
    if await conn.fetchval("SELECT to_regclass('schema_migrations')") is None:
        return SchemaStatus(frozenset(), None)
    versions = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
    dim = None
    if await conn.fetchval("SELECT to_regclass('schema_meta')") is not None:
        stored = await conn.fetchval("SELECT value FROM schema_meta WHERE key = 'embedding_dim'")
        dim = None if stored is None else int(stored)
    return SchemaStatus(frozenset(versions), dim)


def check_dimension(status: SchemaStatus, url: str, embedding_dim: int) -> None:
    """Raise EmbeddingDimMismatch when the database was migrated with another vector size."""
    if status.embedding_dim is not None and status.embedding_dim != embedding_dim:
        raise EmbeddingDimMismatch(
            f"FACTSTREAM_EMBEDDING_DIM is {embedding_dim}, but the database at"
            f" {redact_url(url)} was migrated with {status.embedding_dim}-dimension vectors;"
            f" set FACTSTREAM_EMBEDDING_DIM={status.embedding_dim} (the embedder must produce"
            f" that size), or migrate a new database for {embedding_dim}"
        )


async def require_schema(conn: Any, url: str, *, embedding_dim: int | None = None) -> None:
    """Raise NotMigrated unless every migration of this version is applied, and (given
    ``embedding_dim``) EmbeddingDimMismatch when the vector size differs."""
    from streams.store.migrate import load_migrations

    status = await schema_status(conn)
    missing = sorted({m.version for m in load_migrations()} - status.applied)
    if missing:
        what = (
            "it has none of factstream's tables"
            if not status.applied
            else f"migrations {', '.join(map(str, missing))} are not applied"
        )
        raise NotMigrated(
            f"the database at {redact_url(url)} is not migrated ({what}); run"
            " `factstream migrate` with this FACTSTREAM_DATABASE_URL"
        )
    if embedding_dim is not None:
        check_dimension(status, url, embedding_dim)


async def ready_database(url: str, *, embedding_dim: int | None = None) -> None:
    """Connect, check the schema (and vector size), disconnect: what commands need first."""
    conn = await connect(url, codecs=False)
    try:
        await require_schema(conn, url, embedding_dim=embedding_dim)
    finally:
        await conn.close()
