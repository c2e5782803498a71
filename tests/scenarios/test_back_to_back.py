"""One tenant's episodes back to back give exactly the table of one-at-a-time processing,
and other tenants keep flowing meanwhile (issue 6, "One tenant's episodes back to back").

One pipeline, three kinds of tenant, all at once:
- ``burst``: 20 moves ("I moved to X") published back to back, as a replay or a backfill
  would deliver them; the judge answers `old`, so each move ends the previous city;
- ``serial``: the same 20 moves, each published only after the previous one finished;
- ``others``: four tenants with one move each, published right after the burst, two of
  them on the burst tenant's partition (same Kafka partition in every stage);
- ``late``: one more tenant on another partition, published a second after the burst,
  once the extract worker has taken in the whole burst.
Without the per-tenant gate, episode k's extraction and judging could run before episode
k-1 was written, the judge would miss k-1's city, and two cities would stay live.

The gate parks a tenant's next episode in the ledger and the writer wakes it, so no
Kafka record waits: the burst holds neither its partition's offsets (the same-partition
tenants) nor the extract worker's in-flight limit (4 x concurrency records; the burst is
larger, and a worker at its limit pauses fetching for every partition).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from streams.events import EpisodeCompleted
from streams.kafka.partitioning import partition_for
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph
from tests.support.events import BASE_TIME, episode
from tests.support.fact_table import Row, fact_table, judge_requests, table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

CITIES = [
    "oslo", "berlin", "lisbon", "paris", "rome", "madrid", "vienna", "prague", "warsaw",
    "dublin", "athens", "helsinki", "tallinn", "riga", "vilnius", "zagreb", "sofia",
    "bucharest", "budapest", "copenhagen",
]  # fmt: skip
PARTITIONS = 3
CONCURRENCY = 4  # the burst (20) is over the in-flight limit, 4 x CONCURRENCY


def moves(tenant: tuple[str, str], cities: list[str]) -> list[EpisodeCompleted]:
    return [
        episode(*tenant, f"ep-{i:02d}", f"I moved to {city.title()}.")
        for i, city in enumerate(cities)
    ]


def script(cities: list[str]) -> TenantScript:
    return TenantScript(
        graphs={
            f"ep-{i:02d}": graph({city: "PLACE"}, claim("user", "lives in", city))
            for i, city in enumerate(cities)
        },
        verdict=always("old"),
    )


def tenant_on(partition: int | None, avoid: int | None = None) -> tuple[str, str]:
    """A fresh tenant whose key lands on ``partition`` (or anywhere but ``avoid``)."""
    while True:
        tenant = (f"move-{uuid.uuid4().hex[:8]}", "p1")
        p = partition_for(f"{tenant[0]}:{tenant[1]}", PARTITIONS)
        if (partition is None or p == partition) and p != avoid:
            return tenant


@dataclass
class Run:
    burst_table: list[Row]
    serial_table: list[Row]
    burst_judged: dict[str, list[Any]]
    burst_done: list[float]  # when each burst episode finished, sorted (s after publishing)
    others_done: dict[str, float | None]  # tenant -> when its episode finished
    late_took: float | None  # the late tenant: from its own publish to finished
    hot: int  # the burst tenant's partition
    partition_of: dict[str, int]


@pytest.fixture(scope="module")
async def run(kafka_bootstrap: str, database_url: str) -> Run:
    settings = await pipeline_settings(kafka_bootstrap, database_url, topic_partitions=PARTITIONS)
    book = ScriptBook(settings.embedding_dim)
    burst = tenant_on(None)
    hot = partition_for(f"{burst[0]}:{burst[1]}", PARTITIONS)
    serial = tenant_on(None, avoid=hot)
    others = [tenant_on(hot), tenant_on(hot), tenant_on(None, avoid=hot),
              tenant_on(None, avoid=hot)]  # fmt: skip
    late = tenant_on(None, avoid=hot)
    for t in (burst, serial):
        book.add(*t, script(CITIES))
    for i, t in enumerate([*others, late]):
        book.add(*t, script([CITIES[i]]))
    burst_eps, serial_eps = moves(burst, CITIES), moves(serial, CITIES)
    other_eps = [moves(t, [CITIES[i]])[0] for i, t in enumerate(others)]
    late_ep = moves(late, [CITIES[len(others)]])[0]
    pipeline = Pipeline(settings, book.models(), concurrency=CONCURRENCY)

    async def one_at_a_time() -> None:
        for ev in serial_eps:
            await pipeline.publish(ev)
            await pipeline.wait_done([ev], timeout=30)

    try:
        async with pipeline:
            serial_run = asyncio.create_task(one_at_a_time())
            await pipeline.publish(*burst_eps, *other_eps)
            await asyncio.sleep(1.0)
            await pipeline.publish(late_ep)
            await pipeline.wait_done([*burst_eps, *other_eps, late_ep], timeout=120)
            await asyncio.wait_for(serial_run, 120)
            pool = pipeline.pool
            tables = [await fact_table(pool, *burst), await fact_table(pool, *serial)]
            judged = await judge_requests(pool, *burst)
    finally:
        delete_pipeline_topics(settings)
    progress = pipeline.progress
    start = min(progress.published[e.event_id] for e in burst_eps)

    def since(event: EpisodeCompleted) -> float | None:
        t = progress.finished_at(event.event_id)
        return None if t is None else round(t - start, 2)

    late_done = progress.finished_at(late_ep.event_id)
    return Run(
        burst_table=tables[0], serial_table=tables[1], burst_judged=judged,
        burst_done=sorted(at for e in burst_eps if (at := since(e)) is not None),
        others_done={e.dataset: since(e) for e in other_eps},
        late_took=None if late_done is None else round(
            late_done - progress.published[late_ep.event_id], 2),
        hot=hot,
        partition_of={d: partition_for(f"{d}:{p}", PARTITIONS) for d, p in others},
    )  # fmt: skip


def test_back_to_back_gives_the_table_of_one_at_a_time(run: Run) -> None:
    last = CITIES[-1]
    expected = table([
        Row("user", "lives in", city, f"ep-{i:02d}", "superseded",
            by=f"user lives in {CITIES[i + 1]}")
        for i, city in enumerate(CITIES[:-1])
    ] + [  # each move ends the city before in valid time: a believed copy with the end
        Row("user", "lives in", city, f"ep-{i + 1:02d}", "expired", valid_until=BASE_TIME,
            end="superseded", end_by=f"user lives in {CITIES[i + 1]}")
        for i, city in enumerate(CITIES[:-1])
    ] + [Row("user", "lives in", last, f"ep-{len(CITIES) - 1:02d}")])  # fmt: skip
    assert run.burst_table == expected
    assert run.serial_table == run.burst_table
    # Each move was judged against exactly the city before it, as one at a time would be.
    assert run.burst_judged == {
        f"ep-{i:02d}": [(f"user lives in {CITIES[i]}", f"user lives in {CITIES[i - 1]}")]
        for i in range(1, len(CITIES))
    }


def _not_serialised(run: Run, same_partition: bool) -> None:
    """Every such other tenant, published after all 20 moves, finished before half of the
    burst did."""
    halfway = run.burst_done[len(run.burst_done) // 2 - 1]
    chosen = {
        d: t for d, t in run.others_done.items()
        if (run.partition_of[d] == run.hot) == same_partition
    }  # fmt: skip
    assert len(chosen) == 2
    print(f"others: {chosen} s; burst: half {halfway} s, all {run.burst_done[-1]} s")
    assert all(t is not None and t < halfway for t in chosen.values()), (
        f"others finished at {chosen} s; half the burst at {halfway} s,"
        f" all of it at {run.burst_done[-1]} s"
    )


def test_tenants_on_other_partitions_flow_while_the_burst_runs(run: Run) -> None:
    _not_serialised(run, same_partition=False)


def test_tenants_on_the_bursts_partition_flow_while_the_burst_runs(run: Run) -> None:
    _not_serialised(run, same_partition=True)


def test_a_burst_over_the_in_flight_limit_stalls_no_other_partition(run: Run) -> None:
    """The late tenant arrives when the extract worker has the whole burst, more than
    its in-flight limit, consumed: it finishes in less time than the burst's first five
    moves take, i.e. it was not held until the burst drained below the limit."""
    assert len(CITIES) > 4 * CONCURRENCY
    five = run.burst_done[4]
    print(f"late tenant: {run.late_took} s; the burst's first five moves: {five} s")
    assert run.late_took is not None and run.late_took < five, (
        f"late tenant took {run.late_took} s; the burst's first five moves {five} s"
    )
