"""Stored and received text reaches the operator's terminal as text. A value holding rich
markup (``[/x]``, ``[link=…]``), an emoji code, ANSI and OSC 8 escape sequences, a C1
control, a bidi override and a bell goes into Postgres (facts, the ledger's errors, model
calls, drops) and Kafka (a dead letter's key, headers and payload; a published line),
and every command that prints it runs to the end and shows it literally, escaped, in its
tables (on a forced colour terminal) and, exactly, in its JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from streams.settings import Settings
from tests.support.cli import Ran, clean_env, run
from tests.support.db import create_fresh_database
from tests.support.fixtures import Tenant
from tests.support.kafka import episode_json, produce

pytestmark = pytest.mark.timeout(300)

HOSTILE = (
    "[/x] [link=https://evil.example]L[/link] [bold]B :smile: \x1b[5mK\x1b[2J"
    " \x1b]8;;https://evil.example\x1b\\O\x1b]8;;\x1b\\ \u202eT \x9bC \x07"
)
# What the operator sees instead, token by token (tables fold between tokens).
SHOWN = [
    "[/x]",
    "[link=https://evil.example]L[/link]",
    "[bold]B",
    ":smile:",
    "\\x1b[5mK\\x1b[2J",
    "\\x1b]8;;https://evil.example\\x1b\\O\\x1b]8;;\\x1b\\",
    "\\u202eT",
    "\\x9bC",
    "\\x07",
]
RAW = ["\x1b]8;", "\x1b[5m", "\x1b[2J", "\x9b", "\u202e", "\x07"]  # never emitted as such
EPISODE = "ep-" + HOSTILE
TRANSCRIPT = [{"seq": 1, "role": "user", "content": HOSTILE, "created_at": "2026-01-01T00:00:00Z"}]


def shown_literally(ran: Ran) -> None:
    assert ran.code == 0, ran
    text = ran.stdout + ran.stderr
    assert "Traceback" not in text
    for raw in RAW:
        assert raw not in text, (raw, text)
    missing = [token for token in SHOWN if token not in text]
    assert missing == [], text


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings_in(v)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def exact_in_json(ran: Ran) -> None:
    assert ran.code == 0, ran
    for raw in [*RAW, "\x1b"]:
        assert raw not in ran.stdout
    assert any(HOSTILE in s for s in strings_in(json.loads(ran.stdout))), ran.stdout


async def seed(url: str, tenant: Tenant) -> None:
    conn = await asyncpg.connect(url)
    try:
        ds, p = tenant.dataset, tenant.project_id
        await conn.execute(
            "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id,"
            " from_seq, to_seq, transcript, completed_at, status, last_error,"
            " semantic_status, semantic_retry_count, semantic_last_error, claimed_by)"
            " VALUES ($1, $2, $3, $4, 'evt-hostile', 1, 1, $5::jsonb, now(), 'failed', $4,"
            " 'failed', 1, $4, $4)",
            ds, p, EPISODE, HOSTILE, json.dumps(TRANSCRIPT),
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
            " episode_id, untrusted_reason, valid_until)"
            " VALUES ($1, $2, $3, $3, $3, 'literal', 0.9, $4, $3, now() + interval '1 day')",
            ds, p, HOSTILE, EPISODE,
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO llm_calls (dataset, project_id, episode_id, stage, kind, model, request,"
            " response, latency_ms, error) VALUES ($1, $2, $3, $4, $4, $4, $5::jsonb, $5::jsonb,"
            " 1, NULL), ($1, $2, $3, 'judge', 'judge', 'm', '{}'::jsonb, NULL, 1, $4)",
            ds, p, EPISODE, HOSTILE, json.dumps({"prompt": HOSTILE}),
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO fact_drops (dataset, project_id, episode_id, stage, reason, detail,"
            " subject, predicate, object) VALUES ($1, $2, $3, $4, $4, $4, $4, $4, $4)",
            ds, p, EPISODE, HOSTILE,
        )  # fmt: skip
    finally:
        await conn.close()


@pytest.fixture
def world(
    database_url: str, tenant: Tenant, tenant_topics: Settings, tmp_path: Path
) -> dict[str, Any]:
    """A database and topics holding the hostile text everywhere a command reads."""
    url = asyncio.run(create_fresh_database(database_url))
    asyncio.run(seed(url, tenant))
    raw = HOSTILE.encode()
    headers = [
        ("x-original-topic", tenant_topics.topic("episodes.completed").encode()),
        ("x-original-partition", b"0"),
        ("x-original-offset", b"0"),
        ("x-exception-class", raw),
        ("x-exception-message", raw),
        ("x-reason", raw),
        ("x-stack-trace", raw),
        ("x-attempt", raw),
        (HOSTILE, raw),
    ]
    dlq = tenant_topics.dlq_topic("extract")
    [(partition, offset)] = produce(
        tenant_topics, dlq, [{"key": raw, "value": raw, "headers": headers}]
    )
    episodes = tmp_path / "episodes.jsonl"
    good = episode_json(tenant.dataset, tenant.project_id, "e-good")
    episodes.write_text(good + "\n" + json.dumps({HOSTILE: HOSTILE}) + "\n")
    env = clean_env(
        FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=tenant_topics.kafka_bootstrap_servers,
        FACTSTREAM_TOPIC_PREFIX=tenant_topics.topic_prefix,
        FACTSTREAM_DATABASE_URL=url,
        FACTSTREAM_EMBEDDING_DIM="16",
        FORCE_COLOR="1",  # rich renders as on a terminal: styles, and links if it made any
        COLUMNS="3000",  # no folding inside a token
    )
    return {"env": env, "record": f"{partition}/{offset}", "episodes": str(episodes)}


def test_every_command_that_prints_stored_text_shows_it_literally(
    world: dict[str, Any], tenant: Tenant
) -> None:
    env, record = world["env"], world["record"]
    tables = [
        ["facts", tenant.dataset, tenant.project_id],
        ["facts", tenant.dataset, tenant.project_id, "--history"],
        ["trace", EPISODE],
        ["trace", EPISODE, "--full"],
        ["dlq", "list", "extract"],
        ["dlq", "show", "extract", record],
        ["dlq", "redrive", "extract", "--dry-run"],
        ["sweep", "--once"],
    ]
    for args in tables:
        shown_literally(run(args, env))
    as_json = [
        ["facts", tenant.dataset, tenant.project_id, "--json"],
        ["trace", EPISODE, "--json"],
        ["dlq", "list", "extract", "--json"],
        ["dlq", "show", "extract", record, "--json"],
        ["dlq", "redrive", "extract", "--json"],  # for real: it is sent back to its topic
    ]
    for args in as_json:
        exact_in_json(run(args, env))


def test_publish_reports_a_hostile_line_literally(world: dict[str, Any]) -> None:
    env, episodes = world["env"], world["episodes"]

    shown = run(["publish", episodes], env)
    assert shown.code == 1  # one line skipped, the good one published
    assert "published 1, skipped 1" in shown.stdout
    shown_literally(Ran(0, shown.stdout, shown.stderr, shown.seconds))

    as_json = run(["publish", episodes, "--json"], env)
    assert as_json.code == 1
    doc = json.loads(as_json.stdout)
    assert doc["published"] == 1 and doc["skipped"][0]["line"] == 2
    assert HOSTILE in doc["skipped"][0]["reason"]
    exact_in_json(Ran(0, as_json.stdout, "", 0.0))


def test_a_key_and_header_that_are_not_utf8_show_their_bytes(
    tenant_topics: Settings, database_url: str
) -> None:
    """Two binary keys must not both print as the same U+FFFD marks: each byte that is not
    UTF-8 shows as ``\\xff``, and that text finds the dead letter again with --tenant."""
    headers = [("x-original-topic", tenant_topics.topic("episodes.completed").encode()),
               ("x-reason", b"not_utf8"), ("h-bin", b"ok \xfe\x1b[31m")]  # fmt: skip
    dlq = tenant_topics.dlq_topic("extract")
    [(partition, offset)] = produce(
        tenant_topics, dlq, [{"key": b"\xff\xfeds:p", "value": b"\xff", "headers": headers}]
    )
    env = clean_env(
        FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=tenant_topics.kafka_bootstrap_servers,
        FACTSTREAM_TOPIC_PREFIX=tenant_topics.topic_prefix,
        FACTSTREAM_DATABASE_URL=database_url,
        COLUMNS="3000",
    )
    record = f"{partition}/{offset}"

    listed = run(["dlq", "list", "extract", "--tenant", "\\xff\\xfeds:p", "--json"], env)
    assert listed.code == 0, listed
    [letter] = json.loads(listed.stdout)["dead_letters"]
    assert letter["tenant"] == "\\xff\\xfeds:p" and letter["id"] == record

    shown = run(["dlq", "show", "extract", record, "--json"], env)
    assert shown.code == 0, shown
    doc = json.loads(shown.stdout)
    assert doc["tenant"] == "\\xff\\xfeds:p"
    assert {"name": "h-bin", "value": "ok \\xfe\x1b[31m"} in doc["headers"]

    table = run(["dlq", "show", "extract", record], env)
    assert table.code == 0, table
    assert "key (tenant): \\xff\\xfeds:p" in table.stdout
    assert "ok \\xfe\\x1b[31m" in table.stdout and "\ufffd" not in table.stdout
