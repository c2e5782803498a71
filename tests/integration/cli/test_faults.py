"""Infrastructure faults, as an operator meets them: every command that needs Kafka or
Postgres says in one line what is wrong, where, and what to do, and exits 1 (2 for a wrong
setting), with no traceback and no librdkafka line. Real processes; a closed port or a
socket directory with no server stands for the service that is down."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import clean_env, closed_port, run, run_for
from tests.support.db import create_fresh_database

pytestmark = pytest.mark.timeout(300)

KAFKA_COMMANDS = [
    ["topics", "list"],
    ["topics", "create"],
    ["publish", "{episodes}"],
    ["replay", "extract", "--to-earliest"],
    ["lag"],
    ["lag", "--json"],
    ["dlq", "list", "extract"],
    ["dlq", "show", "extract", "0/0"],
    ["dlq", "redrive", "extract"],
    ["sweep", "--once"],
]
DEMO_MODEL = "streams.model.fakes.demo:create_models"  # search and console build an embedder
POSTGRES_COMMANDS = [
    ["migrate"], ["facts", "ds", "p"], ["trace", "e1"], ["sweep", "--once"],
    ["search", "ds", "p", "q"], ["console", "--port", "{port}"],
]  # fmt: skip


def env_of(kafka: str, database: str, **more: str) -> dict[str, str]:
    return clean_env(
        FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=kafka, FACTSTREAM_DATABASE_URL=database, **more
    )


def one_error_line(ran_err: str) -> str:
    lines = ran_err.splitlines()
    assert len(lines) == 1, ran_err
    assert lines[0].startswith("error: ") and "Traceback" not in ran_err
    return lines[0]


@pytest.mark.parametrize("args", KAFKA_COMMANDS, ids=" ".join)
def test_an_unreachable_broker_is_one_line_naming_it(
    args: list[str], tmp_path: Path, database_url: str
) -> None:
    episodes = tmp_path / "episodes.jsonl"
    episodes.write_text("{}\n")
    address = f"127.0.0.1:{closed_port()}"
    env = env_of(address, database_url)

    ran = run([a.format(episodes=episodes) for a in args], env)

    assert ran.code == 1, ran
    line = one_error_line(ran.stderr)
    assert f"Kafka at {address} is unreachable (" in line and "Connection refused" in line
    assert "factstream dev up" in line and "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS" in line
    assert ran.stdout == ""
    assert ran.seconds < 25  # the client's own timeouts are 30 s and more


@pytest.mark.parametrize("args", POSTGRES_COMMANDS, ids=" ".join)
def test_an_unreachable_postgres_is_one_line_naming_it(
    args: list[str], tmp_path: Path, kafka_bootstrap: str
) -> None:
    url = f"postgresql://postgres:secret@/factstream?host={tmp_path / 'no-server-here'}"
    env = env_of(kafka_bootstrap, url, FACTSTREAM_MODEL_PROVIDER=DEMO_MODEL)

    ran = run([a.format(port=closed_port()) for a in args], env, timeout_s=30)

    assert ran.code == 1, ran
    line = one_error_line(ran.stderr)
    shown = f"postgresql://postgres:***@/factstream?host={tmp_path / 'no-server-here'}"
    assert f"Postgres at {shown} is unreachable (" in line, line
    assert "secret" not in line
    assert "factstream dev up" in line and "FACTSTREAM_DATABASE_URL" in line


@pytest.mark.parametrize("args", [["facts", "ds", "p"], ["trace", "e1"], ["sweep", "--once"]])
def test_a_database_not_migrated_says_run_migrate(
    args: list[str], database_url: str, kafka_bootstrap: str
) -> None:
    empty = asyncio.run(create_fresh_database(database_url, None))
    env = env_of(kafka_bootstrap, empty)

    ran = run(args, env)

    assert ran.code == 1, ran
    line = one_error_line(ran.stderr)
    assert f"the database at {empty} is not migrated" in line
    assert "run `factstream migrate`" in line


# The read side: search embeds the query for vectors of the database's size, and the
# Playground serves what is in the tables; neither can do anything with a database that
# is not migrated or holds vectors of another size, so each says so at once, as the
# commands above do, instead of "cannot reach Postgres" after a failed query.
READ_SIDE = [["search", "ds", "p", "civic"], ["console", "--port", "{port}"]]


@pytest.mark.parametrize("args", READ_SIDE, ids=" ".join)
@pytest.mark.parametrize(
    ("dim", "code", "says"),
    [(None, 1, "is not migrated (it has none of factstream's tables); run `factstream migrate`"),
     (32, 2, "FACTSTREAM_EMBEDDING_DIM is 32, but the database at")],
    ids=["not-migrated", "other-dim"],
)  # fmt: skip
def test_the_read_side_refuses_a_database_it_cannot_read(
    args: list[str], dim: int | None, code: int, says: str, database_url: str
) -> None:
    url = asyncio.run(create_fresh_database(database_url, None if dim is None else 16))
    env = clean_env(FACTSTREAM_DATABASE_URL=url, FACTSTREAM_MODEL_PROVIDER=DEMO_MODEL,
                    FACTSTREAM_EMBEDDING_DIM=str(dim or 16))  # fmt: skip

    ran = run([a.format(port=closed_port()) for a in args], env, timeout_s=30)

    assert ran.code == code, ran
    line = one_error_line(ran.stderr)
    assert says in line and "cannot reach" not in line, line
    assert ran.stdout == ""


def test_another_embedding_dimension_is_a_setting_to_fix(database_url: str) -> None:
    migrated = asyncio.run(create_fresh_database(database_url, 16))
    env = clean_env(FACTSTREAM_DATABASE_URL=migrated, FACTSTREAM_EMBEDDING_DIM="32")

    ran = run(["migrate"], env)

    assert ran.code == 2, ran
    line = one_error_line(ran.stderr)
    assert "FACTSTREAM_EMBEDDING_DIM is 32" in line and "16-dimension vectors" in line
    assert "set FACTSTREAM_EMBEDDING_DIM=16" in line


def test_invalid_settings_are_one_line_exit_2() -> None:
    ran = run(["topics", "list"], clean_env(FACTSTREAM_TOPIC_PARTITIONS="twelve"))
    assert ran.code == 2, ran
    line = one_error_line(ran.stderr)
    assert "FACTSTREAM_TOPIC_PARTITIONS" in line and "'twelve'" in line


# --- the worker: JSON lines, it waits for what may come up, refuses what will not ---------


def json_lines(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines()]


def worker_env(**values: str) -> dict[str, str]:
    return clean_env(FACTSTREAM_MODEL_PROVIDER="replay", **values)


def test_a_worker_waits_for_an_unreachable_broker_in_a_few_lines() -> None:
    address = f"127.0.0.1:{closed_port()}"
    ran = run_for(["worker", "resolve"], worker_env(FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=address), 8)

    assert ran.code == 0, ran  # stopped while waiting: nothing to drain
    lines = json_lines(ran.stderr)
    waits = [d for d in lines if d["level"] == "warning"]
    assert 1 <= len(waits) <= 5 and len(lines) <= 6, ran.stderr  # 1 s, 2 s, 4 s ... apart
    assert all(f"Kafka at {address} is unreachable" in str(d["msg"]) for d in waits)
    assert lines[-1]["msg"] == "stopped while waiting"


def test_a_worker_waits_for_an_unreachable_postgres(tmp_path: Path, kafka_bootstrap: str) -> None:
    url = f"postgresql://postgres:@/factstream?host={tmp_path}"
    env = env_of(kafka_bootstrap, url, FACTSTREAM_MODEL_PROVIDER="replay")
    ran = run_for(["worker", "write"], env, 6)

    assert ran.code == 0, ran
    waits = [d for d in json_lines(ran.stderr) if d["level"] == "warning"]
    assert waits and all(f"Postgres at {url} is unreachable" in str(d["msg"]) for d in waits)


@pytest.mark.parametrize(("dim", "code", "says"), [(None, 1, "is not migrated"), (32, 2, "is 32")])
def test_a_worker_refuses_a_database_it_cannot_use(
    dim: int | None, code: int, says: str, database_url: str, kafka_bootstrap: str
) -> None:
    url = asyncio.run(create_fresh_database(database_url, None if dim is None else 16))
    env = env_of(kafka_bootstrap, url, FACTSTREAM_MODEL_PROVIDER="replay")
    if dim is not None:
        env["FACTSTREAM_EMBEDDING_DIM"] = str(dim)

    ran = run(["worker", "write"], env)

    assert ran.code == code, ran
    (line,) = json_lines(ran.stderr)
    assert line["level"] == "error" and line["stage"] == "write"
    assert str(line["msg"]).startswith("cannot start worker: ") and says in str(line["msg"])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections and never answers (a firewall that drops, a hung host)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        yield int(s.getsockname()[1])


@pytest.mark.parametrize("service", ["kafka", "postgres"])
def test_an_address_that_never_answers_is_given_up_on_after_10_s(
    service: str, silent_port: int, database_url: str, kafka_bootstrap: str
) -> None:
    address = f"127.0.0.1:{silent_port}"
    if service == "kafka":
        ran = run(["topics", "list"], env_of(address, database_url))
        expected = f"Kafka at {address} is unreachable (no answer within 10 s)"
    else:
        ran = run(["facts", "d", "p"], env_of(kafka_bootstrap, f"postgresql://u@{address}/db"))
        expected = f"Postgres at postgresql://u@{address}/db is unreachable (no answer within 10 s)"

    assert ran.code == 1, ran
    assert expected in one_error_line(ran.stderr)
    assert ran.seconds < 25  # not the 30 s (Kafka) or 60 s (asyncpg) of the clients
