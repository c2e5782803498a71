"""`--json` on the commands that print data: one JSON document on stdout (and nothing
else there), with the numbers the table shows. Real broker and Postgres."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from streams.cli.main import app
from streams.kafka.topics import all_topics
from streams.settings import Settings
from tests.support.db import create_fresh_database
from tests.support.fixtures import Tenant
from tests.support.kafka import cli_env, commit, committed, episode_json, fill_partitions


def as_json(args: list[str], env: dict[str, str], code: int = 0) -> Any:
    result = CliRunner().invoke(app, [*args, "--json"], env=env)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_topics_create_and_list(tenant_settings: Settings, create_topics: Any) -> None:
    env = cli_env(tenant_settings)
    names = [s.name for s in all_topics(tenant_settings)]

    before = as_json(["topics", "list"], env)
    assert [(t["name"], t["exists"]) for t in before["topics"]] == [(n, False) for n in names]
    create_topics(tenant_settings, partitions=2)  # deleted again after the test
    created = as_json(["topics", "create"], env)
    assert [(t["name"], t["action"]) for t in created["topics"]] == [(n, "exists") for n in names]
    after = as_json(["topics", "list"], env)
    first = after["topics"][0]
    assert first == {
        "name": names[0], "configured": True, "exists": True, "partitions": 2,
        "retention_ms": tenant_settings.input_retention_ms,
    }  # fmt: skip
    assert after["bootstrap"] == tenant_settings.kafka_bootstrap_servers


def test_migrate(database_url: str) -> None:
    url = asyncio.run(create_fresh_database(database_url, None))
    env = {"FACTSTREAM_DATABASE_URL": url, "FACTSTREAM_EMBEDDING_DIM": "16"}
    first = as_json(["migrate"], env)
    assert first["applied"] == first["known"] and first["embedding_dim"] == 16
    assert as_json(["migrate"], env)["applied"] == []


def test_replay_plan_and_execution(tenant_topics: Settings, tenant: Tenant) -> None:
    topic = tenant_topics.topic("facts.deduped")
    fill_partitions(tenant_topics, tenant.key, topic, {0: 5, 1: 3})
    group = f"json-judge-{uuid.uuid4().hex[:8]}"
    commit(tenant_topics, group, topic, {0: 5, 1: 3})
    env = cli_env(tenant_topics)

    plan = as_json(["replay", "judge", "--group", group, "--to-earliest"], env)
    assert {k: plan[k] for k in ("stage", "group", "topic", "mode", "executed")} == {
        "stage": "judge", "group": group, "topic": topic, "mode": "offsets", "executed": False,
    }  # fmt: skip
    assert plan["reset"] == "--to-earliest" and plan["to_replay"] == 8
    assert plan["partitions"][0] == {
        "partition": 0, "earliest": 0, "log_end": 5, "committed": 5, "new_offset": 0,
        "to_replay": 5, "to_skip": 0,
    }  # fmt: skip
    assert committed(tenant_topics, group, topic, 3) == {0: 5, 1: 3, 2: -1001}

    done = as_json(["replay", "judge", "--group", group, "--to-offset", "1", "--execute"], env)
    assert done["executed"] is True and done["to_replay"] == 6
    assert committed(tenant_topics, group, topic, 3) == {0: 1, 1: 1, 2: 0}


def test_sweep_once(database_url: str, tenant_topics: Settings) -> None:
    url = asyncio.run(create_fresh_database(database_url))
    env = {**cli_env(tenant_topics), "FACTSTREAM_DATABASE_URL": url}
    assert as_json(["sweep", "--once"], env) == {
        "active": True, "republished": [], "ended_failed": [], "indexes_built": [], "grafted": 0,
    }  # fmt: skip


def test_publish(tenant_topics: Settings, tenant: Tenant, tmp_path: Path) -> None:
    source = tmp_path / "episodes.jsonl"
    source.write_text(episode_json(tenant.dataset, tenant.project_id, "e1") + "\n")
    doc = as_json(["publish", str(source)], cli_env(tenant_topics))
    [row] = doc["tenants"]
    assert doc["published"] == 1 and doc["skipped"] == [] and doc["not_delivered"] == []
    assert row["tenant"] == tenant.key and row["events"] == 1 and len(row["partitions"]) == 1


def test_dev_status(kafka_bootstrap: str, database_url: str, tmp_path: Path) -> None:
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "FACTSTREAM_DATABASE_URL": database_url,
        "FACTSTREAM_DEV_DIR": str(tmp_path),
    }
    doc = as_json(["dev", "status"], env)
    assert doc["dev_dir"] == str(tmp_path)
    assert [(s["name"], s["kind"], s["running"]) for s in doc["services"]] == [
        ("kafka", "external", True),
        ("postgres", "external", True),  # it answered a connection
    ]


def test_schemas_export(tmp_path: Path) -> None:
    doc = as_json(["schemas", "export", "--dir", str(tmp_path)], {})
    assert doc["written"] and all(Path(p).is_file() for p in doc["written"])
    assert {Path(p).parent for p in doc["written"]} == {tmp_path}


def test_json_keeps_stdout_a_document_when_a_command_fails(tenant_settings: Settings) -> None:
    # No topic under this prefix: lag says so on stderr, stdout stays valid JSON.
    result = CliRunner().invoke(app, ["lag", "--json"], env=cli_env(tenant_settings))
    assert result.exit_code == 1
    assert json.loads(result.stdout)["total_lag"] == 0
    assert "none of the topics exists" in result.stderr
