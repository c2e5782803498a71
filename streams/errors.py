"""The one place errors are sorted into transient (retry) and poison (dead-letter).

Stage code raises these (or lets library errors through); the runtime asks
:func:`is_transient` and never guesses on its own.
"""

from __future__ import annotations

import asyncio
import socket


class FactstreamError(Exception):
    """Base of every error factstream raises on purpose."""


class TransientError(FactstreamError):
    """Worth retrying with backoff: model 429/5xx/timeouts, lost connections, lock timeouts."""


class PoisonError(FactstreamError):
    """The record itself is bad; retrying cannot help. Dead-lettered at once, with
    ``reason`` as its x-reason header (subclasses name a more precise one)."""

    reason = "poison"


class ModelError(FactstreamError):
    """A model call failed for good (after its own retries, or a reply that breaks the schema)."""

    # The provider stayed unreachable or overloaded (429, 5xx, timeouts) through its own
    # retries: the same call may well succeed later, so it is an outage to ride out.
    outage = False


class ConfigError(FactstreamError):
    """A setting or an argument is wrong: nothing runs until it is fixed (exit code 2)."""


class InfraError(FactstreamError):
    """A service factstream needs (broker, database, local infrastructure) is unusable."""


_TRANSIENT_SQLSTATES = {
    "55P03",  # lock_not_available (lock_timeout)
    "57014",  # query_canceled (statement_timeout)
    "40001",  # serialization_failure
    "40P01",  # deadlock_detected
    "57P01",  # admin_shutdown
    "57P02",  # crash_shutdown
    "57P03",  # cannot_connect_now
    "53300",  # too_many_connections
    "08000",
    "08003",
    "08006",
    "08001",
    "08004",  # connection exceptions
}


def is_transient(exc: BaseException) -> bool:
    """True when retrying the same record later may succeed."""
    if isinstance(exc, TransientError):
        return True
    if isinstance(exc, ModelError):
        return exc.outage
    if isinstance(exc, PoisonError):
        return False
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError, socket.error)):
        return True
    sqlstate = getattr(exc, "sqlstate", None)
    if isinstance(sqlstate, str) and sqlstate in _TRANSIENT_SQLSTATES:
        return True
    # asyncpg raises these when the server goes away mid-transaction (InternalClientError:
    # "cannot switch to state ..; another operation is in progress", a connection left
    # mid-operation by a Postgres restart).
    name = type(exc).__name__
    return name in {
        "ConnectionDoesNotExistError",
        "InterfaceError",
        "CannotConnectNowError",
        "InternalClientError",
    }
