"""The read side's bench: search latency on a 100k-fact tenant (bench/README.md, "Read side").

    .venv/bin/python -m bench.search_bench            # ~3-5 min; infra from the environment
    .venv/bin/python -m bench.search_bench --quick    # 10k facts, smoke run

One database (``fs_bench_search_<hex>``, dropped at the end unless ``--keep``), one
tenant of ``--facts`` facts loaded in bulk beside 20 small tenants (so the shared
full-text index holds other tenants' rows too), the tenant's own HNSW index built as the
sweep would build it, then ``streams.api.search.search`` called the way the read API
calls it (a pool, the scripted embedder answering at once) for a mix of queries. Writes
bench/search_results.json (``--quick``: bench/out/search-quick-results.json) and prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

import asyncpg

from streams.api.search import SearchQuery, search
from streams.model.fakes.scripted import ScriptedEmbedder
from streams.store import databases
from streams.store.db import create_pool
from streams.store.tenant_indexes import build_missing
from streams.store.vector_search import DEFAULT_TUNING

BENCH = Path(__file__).resolve().parent
OUT, QUICK_OUT = BENCH / "search_results.json", BENCH / "out" / "search-quick-results.json"
SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "so", "vu", "ne", "do", "pi", "sha", "gor", "el"]
TENANT = ("bench", "big")


def words(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(out)


VOCAB = words(6000)
PREDICATES = ["likes", "owns", "works at", "lives in", "has", "prefers", "visited", "knows",
              "plays", "reads", "drives", "wants", "studies", "collects", "cooks"]  # fmt: skip
PREDICATES += [f"has {w} of" for w in VOCAB[:285]]  # 300 predicates, like a real history


async def load(url: str, n: int, dim: int) -> None:
    """n facts for the big tenant (5% superseded, 5% below the confidence floor), each
    with its own random vector and a quote of common and rare words; 1,000 for each of 20
    small tenants."""
    vec = f"(SELECT array_agg(random() - 0.5) FROM generate_series(1, {dim}) WHERE g > 0)"
    word = "($4::text[])[1 + ({}) % cardinality($4::text[])]".format  # the g-th word, spread
    predicate = "($5::text[])[1 + g % cardinality($5::text[])]"
    insert = (
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " source_quote, episode_id, embedding, stated_at, created_at)"
        f" SELECT $1, $2, CASE WHEN g % 10 = 0 THEN {word('g % 500')} ELSE 'user' END,"
        f" {predicate}, {word('g * 7919')} || ' ' || {word('g * 104729')} || ' ' || g,"
        " 'literal', CASE WHEN g % 20 = 1 THEN 0.3 ELSE 0.9 END,"
        f" 'I ' || {predicate} || ' the ' || {word('g * 7919')} || ' ' || {word('g * 104729')}"
        f"  || ', my ' || {word('g * 31 % 3000')},"
        f" CASE WHEN g % 20 = 2 THEN 'ended' ELSE 'h' || g / 10 END, {vec}::vector,"
        " now() - interval '30 days' + g * interval '1 second',"
        " now() - interval '30 days' + g * interval '1 second'"
        " FROM generate_series(1::bigint, $3::bigint) g"
    )
    # One in 20 was superseded three days ago, as the writer leaves it: the original
    # retired in transaction time, a copy that carries the valid end and no vector.
    copies = (
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " source_quote, episode_id, embedding, valid_until, end_reason, copy_of, stated_at,"
        " created_at) SELECT dataset, project_id, subject, predicate, object, kind, confidence,"
        " source_quote, 'h-end', NULL, now() - interval '3 days', 'superseded', id, stated_at,"
        " now() - interval '3 days' FROM facts WHERE episode_id = 'ended'"
    )
    retire = (
        "UPDATE facts SET invalid_at = now() - interval '3 days', invalid_reason = 'superseded'"
        " WHERE episode_id = 'ended'"
    )
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(insert, *TENANT, n, VOCAB, PREDICATES)
        for i in range(20):
            await conn.execute(insert, "bench", f"small-{i}", 1000, VOCAB, PREDICATES)
        async with conn.transaction():
            await conn.execute(copies)
            await conn.execute(retire)
    finally:
        await conn.close()


async def queries(pool: Any, count: int, seed: int = 11) -> list[tuple[str, list[float]]]:
    """Half are a stored fact's own words (the expected answer is known), half a question
    made of common and rare words; each with a vector the scripted embedder returns."""
    rng = random.Random(seed)
    rows = await pool.fetch(
        "SELECT subject || ' ' || predicate || ' ' || object AS text, embedding FROM facts"
        " WHERE dataset = $1 AND project_id = $2 AND embedding IS NOT NULL"
        " AND confidence >= 0.5 ORDER BY random() LIMIT $3", *TENANT, count // 2,
    )  # fmt: skip
    out = [(r["text"], [float(x) for x in r["embedding"].to_list()]) for r in rows]
    dim = len(out[0][1])
    while len(out) < count:
        text = f"what does the user {rng.choice(PREDICATES)} {rng.choice(VOCAB)} my"
        out.append((text, [rng.random() - 0.5 for _ in range(dim)]))
    rng.shuffle(out)
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def measure(
    pool: Any, asked: list[tuple[str, list[float]]], **options: Any
) -> dict[str, Any]:
    embedder = ScriptedEmbedder(len(asked[0][1]), dict(asked))
    times, found_first = [], 0
    for text, _ in asked[:10]:  # warm-up: plans, caches, the pool
        await search(pool, embedder, *TENANT, SearchQuery(text=text, **options))
    for text, _ in asked:
        started = time.perf_counter()
        result = await search(pool, embedder, *TENANT, SearchQuery(text=text, **options))
        times.append((time.perf_counter() - started) * 1000)
        found_first += bool(result.hits) and " ".join(result.hits[0].fact.triple) == text
    return {
        "queries": len(asked), "p50_ms": round(percentile(times, 50), 2),
        "p95_ms": round(percentile(times, 95), 2), "p99_ms": round(percentile(times, 99), 2),
        "mean_ms": round(statistics.mean(times), 2),
        "stored_fact_ranked_first": f"{found_first}/{len(asked) // 2}",
    }  # fmt: skip


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server = os.environ["FACTSTREAM_DATABASE_URL"]
    url = await databases.create_database(
        server, databases.unique_name("fs_bench_search"), embedding_dim=args.dim
    )
    try:
        started = time.monotonic()
        await load(url, args.facts, args.dim)
        loaded = time.monotonic() - started
        conn = await asyncpg.connect(url)
        try:
            await build_missing(conn, DEFAULT_TUNING.exact_below, limit=None)
            await conn.execute("VACUUM ANALYZE facts")
        finally:
            await conn.close()
        pool = await create_pool(url, min_size=1, max_size=4)
        load_before = os.getloadavg()  # this 2-core machine is shared: how busy it was
        try:
            asked = await queries(pool, args.queries)
            live = await pool.fetchval(
                "SELECT count(*) FROM facts WHERE dataset = $1 AND project_id = $2"
                " AND invalid_at IS NULL", *TENANT,
            )  # fmt: skip
            return {
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "tenant_facts": int(live), "dim": args.dim, "other_tenants": 20,
                "load_and_index_s": round(time.monotonic() - started, 1),
                "load_s": round(loaded, 1),
                "search_now_k10": await measure(pool, asked),
                "search_valid_at_past_k10": await measure(
                    pool, asked, valid_at=_days_ago(10)),
                "search_include_ended_k10": await measure(pool, asked, include_ended=True),
            }  # fmt: skip
        finally:
            await pool.close()
    finally:
        if not args.keep:
            await databases.drop_database(server, url)


def _days_ago(days: int) -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) - timedelta(days=days)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=400)
    # 128, as the write side's scale scenario: an HNSW build over 100k 768-dim random
    # vectors takes longer than the bench can afford on this machine (bench/README.md).
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--quick", action="store_true", help="10k facts, 100 queries")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument("--out", type=Path, default=None, help=f"default {OUT.name}")
    args = parser.parse_args()
    if args.quick:
        args.facts, args.queries = 10_000, 100
    args.out = args.out or (QUICK_OUT if args.quick else OUT)
    results = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
