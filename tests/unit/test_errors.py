"""Which errors the runtime retries: a Postgres restart must not dead-letter good records."""

from __future__ import annotations

import asyncpg

from streams.errors import ModelError, PoisonError, TransientError, is_transient
from streams.model.ports import ModelCallFailed


def test_connection_failures_of_a_postgres_restart_are_transient() -> None:
    for exc in (
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed"),
        asyncpg.exceptions.CannotConnectNowError("the database system is shutting down"),
        asyncpg.exceptions.InternalClientError(
            "cannot switch to state 11; another operation (2) is in progress"
        ),
        FileNotFoundError(2, "No such file or directory"),  # the Unix socket is gone
        TransientError("lock timeout"),
    ):
        assert is_transient(exc), exc


def test_poison_and_model_failures_are_not() -> None:
    assert not is_transient(PoisonError("bad record"))
    assert not is_transient(ModelError("malformed reply"))
    assert not is_transient(ValueError("a bug"))


def test_a_model_call_that_failed_on_an_outage_is_transient() -> None:
    # 429/5xx/timeouts through the provider's own retries: a minute later it may answer.
    assert is_transient(ModelCallFailed("503 after 4 attempts", [], outage=True))
    assert not is_transient(ModelCallFailed("not a valid RawGraph", []))
