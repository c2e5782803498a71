"""`factstream demo` end to end, as a user runs it: real worker processes, the bundled
cassette (no GEMINI_API_KEY), then the fact table a user would inspect. Run twice on a
freshly recreated database: the cassette must answer every call of both runs and both
runs must end with the same facts."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from streams.store.databases import database_url_on, drop_database

ROOT = Path(__file__).resolve().parents[2]


def run_demo(kafka_bootstrap: str, server_url: str, db_name: str) -> tuple[str, float]:
    env = {k: v for k, v in os.environ.items() if "GEMINI_API_KEY" not in k}
    env |= {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "FACTSTREAM_DATABASE_URL": server_url,
    }
    factstream = Path(sys.executable).with_name("factstream")
    started = time.monotonic()
    done = subprocess.run(
        [str(factstream), "demo", "--db-name", db_name, "--timeout", "100"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=170, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    return output, time.monotonic() - started


async def read_state(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        facts = await conn.fetch(
            "SELECT project_id, subject, predicate, object, valid_from, valid_until, invalid_at,"
            " invalid_reason FROM facts WHERE dataset = 'demo' ORDER BY id"
        )
        entities = await conn.fetch("SELECT project_id, name FROM entities ORDER BY id")
        episodes = await conn.fetch("SELECT episode_id, status, semantic_status FROM episodes")
    finally:
        await conn.close()
    return {"facts": facts, "entities": entities, "episodes": episodes}


def rows(state: dict[str, Any], project: str, triple: str) -> list[Any]:
    return [
        f
        for f in state["facts"]
        if f["project_id"] == project and f"{f['subject']} {f['predicate']} {f['object']}" == triple
    ]


def live(state: dict[str, Any], project: str, triple: str) -> bool:
    return any(
        f["invalid_at"] is None and f["valid_until"] is None for f in rows(state, project, triple)
    )


def assert_expected_facts(state: dict[str, Any]) -> None:
    # alice: the job change supersedes; selling the car closes it and cascades.
    assert live(state, "alice", "user works at anthropic")
    [anthropic] = rows(state, "alice", "user works at anthropic")
    assert anthropic["valid_from"].date().isoformat() == "2026-03-01"
    google, copy = rows(state, "alice", "user works at google")
    assert google["invalid_reason"] == "superseded"
    # True until Anthropic starts, by current belief (the copy carries the end).
    assert copy["invalid_at"] is None and copy["valid_until"] == anthropic["valid_from"]
    car = rows(state, "alice", "user drives honda civic")
    assert sorted(str(f["invalid_reason"]) for f in car) == ["None", "closed"]
    assert all(f["valid_until"] is not None for f in car if f["invalid_reason"] is None)
    mileage = rows(state, "alice", "honda civic has mileage of 80000 miles")
    assert "cascade" in [f["invalid_reason"] for f in mileage]
    (sold,) = {f["valid_until"] for f in car if f["invalid_reason"] is None}
    assert [f["valid_until"] for f in mileage if f["invalid_reason"] is None] == [sold]
    assert not any(
        live(state, "alice", t)
        for t in ("user drives honda civic", "honda civic has mileage of 80000 miles")
    )
    # bob: "Acme Corp" and "acme corp." are one entity; both budgets live; one paraphrase.
    assert [
        e["name"] for e in state["entities"] if e["project_id"] == "bob" and "acme" in e["name"]
    ] == ["acme corp"]
    assert len(rows(state, "bob", "user works at acme corp")) == 1
    assert live(state, "bob", "user has car budget of 30000 usd")
    assert live(state, "bob", "user has tv budget of 1500 usd")
    paraphrases = rows(state, "bob", "user wants large screen tv") + rows(
        state, "bob", "user prefers big display tv"
    )
    assert len(paraphrases) == 1
    # carol: moved; working from chennai is not contradicted; the injection never lands.
    assert live(state, "carol", "user lives in bangalore")
    chennai, copy = rows(state, "carol", "user lives in chennai")
    assert chennai["invalid_reason"] == "superseded" and copy["valid_until"] is not None
    assert live(state, "carol", "user works from chennai")
    assert not [f for f in state["facts"] if f["subject"] == "dave" or f["object"] == "paris"]
    status = {e["episode_id"]: (e["status"], e["semantic_status"]) for e in state["episodes"]}
    assert status.pop("carol-3") == ("skipped", "skipped")
    assert set(status.values()) == {("done", "done")}


def fact_table(state: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            f["project_id"],
            f["subject"],
            f["predicate"],
            f["object"],
            str(f["valid_from"]),
            str(f["valid_until"]),
            f["invalid_at"] is None,
            str(f["invalid_reason"]),
        )
        for f in state["facts"]
    )


def test_demo_twice_prints_and_stores_the_expected_facts(
    kafka_bootstrap: str, database_url: str
) -> None:
    db_name = f"fs_demo_{uuid.uuid4().hex[:8]}"
    url = database_url_on(database_url, db_name)
    try:
        output, seconds = run_demo(kafka_bootstrap, database_url, db_name)
        assert seconds < 90, f"the demo took {seconds:.0f} s"
        assert "REPLAYED from the bundled cassette" in output
        assert "not of Gemini" in output
        assert "8/8 episodes finished" in output
        assert (
            "live now: user has job title data engineer; user works at anthropic;"
            " user commutes by bike"
        ) in output
        assert "live now: user works from chennai; user lives in bangalore" in output
        assert "subject_not_allowed" in output and "near_duplicate" in output
        assert "consumer lag" in output and "all stages" in output
        assert "stopped 7 processes (SIGTERM)" in output
        first = asyncio.run(read_state(url))
        assert_expected_facts(first)

        run_demo(kafka_bootstrap, database_url, db_name)  # drops and recreates the database
        second = asyncio.run(read_state(url))
        assert_expected_facts(second)
        assert fact_table(second) == fact_table(first)
    finally:
        asyncio.run(drop_database(database_url, db_name))
