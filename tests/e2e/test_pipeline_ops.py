"""Operator commands against the whole running pipeline (issue 7): `factstream replay
--reprocess` twice converges, and `factstream dlq redrive` brings a fixed record through.

Each test runs all six stages in-process (tests/support/pipeline.py) on the real broker
and Postgres, and drives the commands the way an operator does, through the CLI.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta

from typer.testing import CliRunner

from streams.cli.main import app
from streams.events import EpisodeCompleted, decode_episode
from streams.kafka import admin as ka
from streams.kafka.range_reader import read_ranges
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph, verdicts
from streams.model.ports import EmbedInput
from streams.settings import Settings
from tests.support.dead_letters import wait_for_dead_letters
from tests.support.events import BASE_TIME, episode
from tests.support.fact_table import Row, drops, fact_table, table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

JOBS_AND_CAR = graph(
    {"google": "ORG", "honda civic": "VEHICLE"},
    claim("user", "works at", "google"), claim("user", "drives", "honda civic"),
    claim("honda civic", "has mileage of", "80000 km"),
)  # fmt: skip
SOLD_DAY = (BASE_TIME - timedelta(days=7)).date().isoformat()  # "last week"
SOLD_AT = datetime.fromisoformat(SOLD_DAY).replace(tzinfo=UTC)
HISTORY = [
    ("ep-1", "I work at Google and drive a Honda Civic with 80,000 km.", JOBS_AND_CAR),
    ("ep-2", "I just started at Anthropic.",
     graph({"anthropic": "ORG"}, claim("user", "works at", "anthropic"))),
    ("ep-3", "I sold the Civic last week.",
     graph({"honda civic": "VEHICLE"}, claim("user", "sold", "honda civic", until=SOLD_DAY))),
]  # fmt: skip
SOLD = "user sold honda civic"
JUDGE = {
    ("user works at anthropic", "user works at google"): "old",
    (SOLD, "user drives honda civic"): "old",
}
MILEAGE, ANTHROPIC = "honda civic has mileage of 80000 km", "user works at anthropic"
ORIGINAL = table([
    Row("honda civic", "has mileage of", "80000 km", "ep-1", "cascade", by=MILEAGE, kind="literal"),
    Row("honda civic", "has mileage of", "80000 km", "ep-3", "expired", kind="literal",
        valid_until=SOLD_AT, end="cascade", end_by=SOLD),
    Row("user", "drives", "honda civic", "ep-1", "superseded", by=SOLD),
    Row("user", "drives", "honda civic", "ep-3", "expired", valid_until=SOLD_AT,
        end="superseded", end_by=SOLD),
    Row("user", "sold", "honda civic", "ep-3", "expired", valid_until=SOLD_AT),
    Row("user", "works at", "anthropic", "ep-2"),
    Row("user", "works at", "google", "ep-1", "superseded", by=ANTHROPIC),
    Row("user", "works at", "google", "ep-2", "expired", valid_until=BASE_TIME, end="superseded",
        end_by=ANTHROPIC),
])  # fmt: skip


def env_of(settings: Settings) -> dict[str, str]:
    return {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": settings.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": settings.topic_prefix,
    }


def offsets_now(settings: Settings, topic: str) -> dict[int, int]:
    admin = ka.admin_client(settings)
    marks = ka.watermarks(admin, topic, ka.topic_partitions(admin, topic))
    return {p: end for p, (_, end) in marks.items()}


def published_since(
    settings: Settings, topic: str, before: dict[int, int]
) -> list[EpisodeCompleted]:
    """The episodes that landed on ``topic`` after the ``before`` log-end offsets."""
    after = offsets_now(settings, topic)
    ranges = {p: (before.get(p, 0), end) for p, end in after.items()}
    return [decode_episode(r.value or b"") for r in read_ranges(settings, topic, ranges)]


async def committed_up_to_end(settings: Settings, group: str, topic: str) -> None:
    """Wait until the group has committed everything in the topic (the replay range's end)."""
    admin = ka.admin_client(settings)
    deadline = time.monotonic() + 20
    while True:
        parts = ka.topic_partitions(admin, topic)
        ends = {p: end for p, (_, end) in ka.watermarks(admin, topic, parts).items()}
        done = ka.committed_offsets(admin, group, topic, parts)
        if all((done[p] or 0) >= end for p, end in ends.items()):
            return
        assert time.monotonic() < deadline, f"{group} committed {done}, log ends {ends}"
        await asyncio.sleep(0.1)


async def test_replay_reprocess_twice_converges(kafka_bootstrap: str, database_url: str) -> None:
    """Three episodes (a job change, a car sold: supersede and cascade), then `replay extract
    --to-earliest --reprocess --execute` twice. The whole table, history included, stays
    exactly what the first pass wrote: a replayed episode re-extracts its old facts, but
    never brings back what a later episode ended, nor writes a row twice. Two judges: one
    that keeps the current job when asked about the replayed old one, and one that answers
    `old` to everything (it would flip the jobs back and forth)."""
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    graphs = {ep: g for ep, _, g in HISTORY}
    keeps = (f"replay-{uuid.uuid4().hex[:8]}", "p1")
    flips = (f"flip-{uuid.uuid4().hex[:8]}", "p1")
    keep_current = {**JUDGE, ("user works at google", "user works at anthropic"): "new"}
    book.add(*keeps, TenantScript(graphs=graphs, verdict=verdicts(keep_current)))
    book.add(*flips, TenantScript(graphs=graphs, verdict=always("old")))
    topic = settings.topic("episodes.completed")
    pipeline = Pipeline(settings, book.models())
    tables: list[dict[str, list[Row]]] = []
    try:
        async with pipeline:
            events = [episode(*t, ep, text) for t in (keeps, flips) for ep, text, _ in HISTORY]
            await pipeline.publish(*events)
            await pipeline.wait_done(events)
            tables.append({t[0]: await fact_table(pipeline.pool, *t) for t in (keeps, flips)})
            for round_ in (1, 2):
                group = pipeline.group("extract")
                await committed_up_to_end(settings, group, topic)
                before = offsets_now(settings, topic)
                result = await asyncio.to_thread(
                    CliRunner().invoke, app,
                    ["replay", "extract", "--group", group, "--to-earliest", "--reprocess",
                     "--execute"],
                    env=env_of(settings),
                )  # fmt: skip
                assert result.exit_code == 0, result.output
                copies = published_since(settings, topic, before)
                # Round 2 replays the whole topic again: the originals and round 1's copies.
                assert len(copies) == len(events) * round_, result.output
                assert all(c.reprocess for c in copies)
                await pipeline.wait_done(copies)
                tables.append({t[0]: await fact_table(pipeline.pool, *t) for t in (keeps, flips)})
            replayed = await drops(pipeline.pool, *flips)
            rounds = await pipeline.pool.fetchval(
                "SELECT count(*) FROM llm_calls WHERE dataset = $1 AND kind = 'extract'", flips[0]
            )
    finally:
        delete_pipeline_topics(settings)

    # First pass, round 1, round 2. Round 2 asks for every episode twice (the originals and
    # round 1's copies), back to back: a repeated request for an episode that is already
    # queued or in flight joins that run (the per-tenant gate), so each runs once more.
    assert rounds == len(HISTORY) * (1 + 1 + 1)
    for snapshot in tables:
        assert snapshot == {keeps[0]: ORIGINAL, flips[0]: ORIGINAL}
    # What the replays did instead: the writer dropped every fact the episode had written.
    assert {d for d in replayed if d[1] == "write"} == {
        ("ep-1", "write", "already_written", "user works at google"),
        ("ep-1", "write", "already_written", "user drives honda civic"),
        ("ep-1", "write", "already_written", "honda civic has mileage of 80000 km"),
    }
    # The replayed sale is history already stored with the same validity: dedup's call.
    assert ("ep-3", "dedup", "exact_duplicate", SOLD) in replayed


async def test_dlq_redrive_brings_a_fixed_record_through(
    kafka_bootstrap: str, database_url: str
) -> None:
    """The embedding provider is down for one episode longer than its own retries: the
    resolve stage dead-letters the episode's extracted graph (a model error is not retried
    in place by the runtime). The dead letter releases the episode's claim and the episode
    runs again in its place, up to `max_retries`; then it is `failed` with the reason and
    the same tenant's next episode goes through at once instead of waiting out the claim
    timeout. Once the provider is back, `factstream dlq redrive resolve` sends the records
    to facts.extracted again, and the episode goes through to the table. Meanwhile another
    tenant's episode is not held up either."""
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    tenant, bystander = (f"dlq-{uuid.uuid4().hex[:8]}", "p1"), (f"ok-{uuid.uuid4().hex[:8]}", "p1")
    outage = {"on": True}

    def provider_down(request: EmbedInput) -> Exception | None:
        if outage["on"] and request.purpose == "entities" and request.scope.episode_id == "ep-1":
            return RuntimeError("503 Service Unavailable after 4 attempts")
        return None

    google = graph({"google": "ORG"}, claim("user", "works at", "google"))
    berlin = graph({"berlin": "PLACE"}, claim("user", "lives in", "berlin"))
    book.add(*tenant, TenantScript(graphs={"ep-1": google, "ep-2": berlin},
                                   embed_fail=provider_down))  # fmt: skip
    book.add(*bystander, TenantScript(graphs={"ep-1": google}))
    stuck = episode(*tenant, "ep-1", "I work at Google.")
    behind = episode(*tenant, "ep-2", "I live in Berlin.")
    other = episode(*bystander, "ep-1", "I work at Google.")
    key = f"{tenant[0]}:{tenant[1]}"
    env = env_of(settings)
    pipeline = Pipeline(settings, book.models())
    try:
        async with pipeline:
            await pipeline.publish(stuck, behind, other)
            await pipeline.wait_done([other, behind])  # neither waits for the claim timeout
            letters = await wait_for_dead_letters(settings, "resolve", tenant=key)
            assert len(letters) == settings.max_retries  # one per run of the episode
            for letter in letters:
                assert letter.reason.startswith("handler_error: ModelCallFailed")
                assert "503" in letter.reason
            ledger = await pipeline.pool.fetchrow(
                "SELECT status, semantic_status, semantic_last_error FROM episodes"
                " WHERE dataset = $1 AND episode_id = 'ep-1'", tenant[0]
            )  # fmt: skip
            assert tuple(ledger)[:2] == ("done", "failed")
            assert "dead-lettered by resolve (handler_error)" in ledger["semantic_last_error"]
            assert await fact_table(pipeline.pool, *tenant) == [
                Row("user", "lives in", "berlin", "ep-2")
            ]

            outage["on"] = False  # the provider is back
            redriven = await asyncio.to_thread(
                CliRunner().invoke, app, ["dlq", "redrive", "resolve", "--tenant", key], env=env
            )
            assert redriven.exit_code == 0, redriven.output
            assert f"redrove {settings.max_retries} dead letter(s) of resolve" in redriven.output
            await pipeline.wait_done([stuck])
            assert await fact_table(pipeline.pool, *tenant) == [
                Row("user", "lives in", "berlin", "ep-2"),
                Row("user", "works at", "google", "ep-1"),
            ]
            again = await asyncio.to_thread(
                CliRunner().invoke, app, ["dlq", "redrive", "resolve", "--tenant", key], env=env
            )
            assert again.exit_code == 0 and "redrove 0" in again.output, again.output
    finally:
        delete_pipeline_topics(settings)
