"""Per-episode database time of the resolve and dedup stages, by tenant size.

    .venv/bin/python bench/stages_bench.py --dim 128 --out bench/stages_bench.json

Creates a fresh database and bulk-loads (generate_series, then the per-tenant HNSW
indexes the sweep would build) a small tenant: 1k entities + 1k live facts, measured
alone; then a big tenant: 100k + 100k, after which the small and big tenants' episodes
are measured interleaved so both see the same machine load. The embedder is the scripted
one (no latency), so a handler's wall time is its database time plus a little Python
(including storing the embed call in llm_calls). Each episode: 6 entities (user, 2 known
names, 3 new) and 8 facts (2 already live, 6 new), so exact lookups and both vector
searches run every time.
The database is dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import time
import zlib
from pathlib import Path
from typing import Any

import asyncpg

from streams.domain.names import canonical_name
from streams.events import Entity, EntityType, Fact, FactKind, FactsExtracted
from streams.model.fakes.scripted import ScriptedEmbedder, hashed_vector, scripted_models
from streams.runtime.stage import RecordContext, StageDeps
from streams.settings import Settings
from streams.stages.dedup import DedupStage
from streams.stages.resolve import ResolveStage
from streams.store import databases
from streams.store.databases import create_database, unique_name
from streams.store.db import create_pool
from streams.store.tenant_indexes import TenantIndex, build_missing
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning

CTX = RecordContext(group="bench", topic="bench", partition=0, offset=0, key=None, timestamp_ms=0)
TYPES = ["PERSON", "ORG", "PLACE", "PRODUCT", "VEHICLE", "FOOD", "EVENT", "ACTIVITY"]
PREDICATES = ["likes", "owns", "visited", "knows", "works with", "plans", "uses", "wants"]


async def fresh_database(server_url: str, dim: int) -> str:
    return await create_database(server_url, unique_name("fs_bench"), embedding_dim=dim)


async def drop_database(server_url: str, url: str) -> None:
    await databases.drop_database(server_url, url)


async def load_tenant(url: str, dataset: str, n: int, dim: int, clusters: int) -> float:
    """n entities and n live facts via generate_series; the tenant's HNSW indexes
    (streams/store/tenant_indexes.py) built after the load.

    clusters = 0: uniform random vectors (the hardest case for HNSW). Otherwise each
    vector is one of ``clusters`` random centres plus noise of the same scale (cosine ~0.7
    to its centre, ~0.5 within a cluster), closer to the topical structure of text
    embeddings. Centres live in table bench_centers so queries can use them too.
    """
    started = time.perf_counter()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("SET maintenance_work_mem = '512MB'")
        for relation in ("facts", "entities"):
            await conn.execute(f"DROP INDEX IF EXISTS {TenantIndex(relation, dataset, 'p').name}")
        await ensure_centers(conn, dim, clusters)
        # The inner series references g, so each row gets its own random vector.
        if clusters:
            vec = (
                f"(SELECT array_agg(ct.v[d] + random() - 0.5) FROM generate_series(1, {dim}) d"
                f" WHERE g > 0)::vector FROM bench_centers ct, generate_series(1, $2) g"
                f" WHERE ct.c = g % {clusters}"
            )
        else:
            vec = (
                f"(SELECT array_agg(random() - 0.5) FROM generate_series(1, {dim})"
                " WHERE g > 0)::vector FROM generate_series(1, $2) g"
            )
        await conn.execute(
            "INSERT INTO entities (dataset, project_id, name, type, embedding)"
            f" SELECT $1, 'p', 'entity ' || g, ($3::text[])[1 + g % $4], {vec}",
            dataset, n, TYPES, len(TYPES),
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " confidence, episode_id, embedding)"
            f" SELECT $1, 'p', 'user', ($3::text[])[1 + g % $4], 'value ' || g, 'literal', 0.9,"
            f" 'load', {vec}",
            dataset, n, PREDICATES, len(PREDICATES),
        )  # fmt: skip
        # What the sweep would build: an index only for a tenant past exact search.
        await build_missing(conn, DEFAULT_TUNING.exact_below, limit=None)
        await conn.execute("VACUUM ANALYZE entities")
        await conn.execute("VACUUM ANALYZE facts")
    finally:
        await conn.close()
    return time.perf_counter() - started


async def ensure_centers(conn: Any, dim: int, clusters: int) -> list[list[float]]:
    await conn.execute("CREATE TABLE IF NOT EXISTS bench_centers (c int PRIMARY KEY, v float8[])")
    await conn.execute(
        "INSERT INTO bench_centers SELECT c, array_agg(random() - 0.5)"
        " FROM generate_series(0, $1 - 1) c, generate_series(1, $2) d GROUP BY c"
        " ON CONFLICT DO NOTHING",
        clusters, dim,
    )  # fmt: skip
    rows = await conn.fetch("SELECT v FROM bench_centers WHERE c < $1 ORDER BY c", clusters)
    return [list(r["v"]) for r in rows]


def clustered_vector(text: str, centers: list[list[float]]) -> list[float]:
    """Like the loaded rows: a centre picked by the text, plus noise of the same scale."""
    centre = centers[zlib.crc32(text.encode()) % len(centers)]
    scale = math.sqrt(len(centre) / 12)
    return [c + scale * x for c, x in zip(centre, hashed_vector(text, len(centre)), strict=True)]


def episode(dataset: str, i: int, n: int) -> FactsExtracted:
    known = [1 + (i * 7919) % n, 1 + (i * 104729) % n]
    typed = [(f"entity {k}", TYPES[k % len(TYPES)]) for k in known] + [
        (f"new thing {i} {j}", TYPES[(i + j) % len(TYPES)]) for j in range(3)
    ]
    names = [name for name, _ in typed]
    entities = [Entity(name="user", type=EntityType.PERSON)] + [
        Entity(name=name, type=EntityType(t)) for name, t in typed
    ]
    live = [(PREDICATES[g % len(PREDICATES)], f"value {g}") for g in (1 + (i * 31) % n, 2 + i % n)]
    facts = [
        Fact(subject="user", predicate=p, object=o, kind=FactKind.LITERAL, confidence=0.9)
        for p, o in live
    ] + [
        Fact(
            subject="user",
            predicate=PREDICATES[j],
            object=names[j % len(names)] if j < 3 else f"detail {i} {j}",
            kind=FactKind.RELATIONSHIP if j < 3 else FactKind.LITERAL,
            confidence=0.9,
        )
        for j in range(6)
    ]
    return FactsExtracted(
        dataset=dataset, project_id="p", episode_id=f"bench-{i}", source_event_id=f"s{i}",
        entities=entities, facts=facts,
    )  # fmt: skip


class Tenant:
    """One tenant's stages and the per-episode handler times collected for it."""

    def __init__(
        self,
        pool: Any,
        dataset: str,
        n: int,
        dim: int,
        offset: int,
        tuning: ScanTuning,
        centers: list[list[float]],
    ) -> None:
        settings = Settings(embedding_dim=dim)
        self.embedder = embedder = ScriptedEmbedder(dim)
        self.centers = centers
        deps = StageDeps(settings, pool, scripted_models(embedder=embedder), "bench")
        self.resolve, self.dedup = ResolveStage(deps), DedupStage(deps)
        self.resolve.tuning = self.dedup.tuning = tuning
        self.dataset, self.n, self.next = dataset, n, offset
        self.times: dict[str, list[float]] = {"resolve": [], "dedup": []}

    async def episode(self, keep: bool) -> None:
        event = episode(self.dataset, self.next, self.n)
        self.next += 1
        if self.centers:  # the scripted embedder answers with vectors shaped like the data
            texts = [canonical_name(e.name) for e in event.entities]
            texts += [f.sentence() for f in event.facts]
            self.embedder.table = {t: clustered_vector(t, self.centers) for t in texts}
        t0 = time.perf_counter()
        (resolved,) = await self.resolve.handle(event, CTX)
        t1 = time.perf_counter()
        await self.dedup.handle(resolved, CTX)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        if keep:
            self.times["resolve"].append((t1 - t0) * 1000)
            self.times["dedup"].append((t2 - t1) * 1000)

    def summary(self) -> dict[str, Any]:
        return {
            stage: {
                "median_ms": round(statistics.median(ts), 2),
                "p95_ms": round(sorted(ts)[int(0.95 * (len(ts) - 1))], 2),
            }
            for stage, ts in self.times.items()
        }


async def run(tenants: list[Tenant], episodes: int, warmup: int = 5) -> None:
    """Episodes of the tenants interleaved, so they share whatever load the machine has."""
    for i in range(warmup + episodes):
        for t in tenants:
            await t.episode(keep=i >= warmup)


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--server-url", default="postgresql://postgres:@/postgres?host=/tmp/shared-pg"
    )
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--out", default="")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument(
        "--clusters", type=int, default=1000, help="0: uniform random vectors (worst case)"
    )
    parser.add_argument("--ef-search", type=int, default=ScanTuning().ef_search)
    parser.add_argument(
        "--database", default="", help="reuse a database left by --keep (no load, no 'alone')"
    )
    args = parser.parse_args()
    tuning = ScanTuning(ef_search=args.ef_search)
    results: dict[str, Any] = {
        "dim": args.dim,
        "episodes": args.episodes,
        "ef_search": tuning.ef_search,
        "vectors": f"{args.clusters} clusters" if args.clusters else "uniform random",
    }
    url = args.database or await fresh_database(args.server_url, args.dim)
    pool = await create_pool(url, max_size=2)
    # Episode numbers start past earlier runs' so new names really are new.
    offset = 1_000_000 + int(time.time()) % 1_000_000 * 10
    centers: list[list[float]] = []
    if args.clusters:
        conn = await asyncpg.connect(url)
        try:
            centers = await ensure_centers(conn, args.dim, args.clusters)
        finally:
            await conn.close()
    try:
        if not args.database:
            results["load_small_s"] = round(
                await load_tenant(url, "small", args.small, args.dim, args.clusters), 1
            )
            alone = Tenant(pool, "small", args.small, args.dim, offset, tuning, centers)
            await run([alone], args.episodes)
            results[f"small_{args.small}_alone"] = alone.summary()
            print(json.dumps(results), flush=True)
            results["load_big_s"] = round(
                await load_tenant(url, "big", args.big, args.dim, args.clusters), 1
            )
        small = Tenant(pool, "small", args.small, args.dim, offset + 100_000, tuning, centers)
        big = Tenant(pool, "big", args.big, args.dim, offset, tuning, centers)
        await run([small, big], args.episodes)
        results[f"small_{args.small}"], results[f"big_{args.big}"] = small.summary(), big.summary()
    finally:
        await pool.close()
        if args.keep or args.database:
            results["database"] = url
        else:
            await drop_database(args.server_url, url)
    results["growth_big_over_small"] = {
        s: round(
            results[f"big_{args.big}"][s]["median_ms"]
            / results[f"small_{args.small}"][s]["median_ms"],
            2,
        )
        for s in ("resolve", "dedup")
    }
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    asyncio.run(main())
