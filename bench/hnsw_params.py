"""HNSW parameters per embedding dimension: insert cost, search cost and recall.

An investigation, not part of `make bench` (it builds several indexes; minutes at 768
dimensions). For each dimension and (m, ef_construction): one table of ``--rows`` random
unit vectors, the index built, then ``--queries`` planted near duplicates (a stored
vector moved to cosine 0.95 of itself) searched at each ef_search; recall is the share
whose stored original comes back first, search ms the mean per query, insert ms the mean
per row of 20 rows inserted one statement at a time, in one transaction, after the build.
Uniform random vectors are HNSW's hardest case; real embeddings cluster and recall higher.

    FACTSTREAM_DATABASE_URL=... .venv/bin/python -m bench.hnsw_params --dims 128,768
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import time
from typing import Any

import asyncpg
from pgvector import Vector
from pgvector.asyncpg import register_vector

from streams.store.databases import create_database, drop_database, enable_vector, unique_name


def _unit(v: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def _near(v: list[float], cosine: float, rng: random.Random) -> list[float]:
    """A unit vector at ``cosine`` to the unit vector ``v``."""
    noise = _unit([rng.gauss(0, 1) for _ in v])
    dot = sum(a * b for a, b in zip(noise, v, strict=True))
    ortho = _unit([n - dot * a for n, a in zip(noise, v, strict=True)])
    sine = math.sqrt(1 - cosine * cosine)
    return [cosine * a + sine * o for a, o in zip(v, ortho, strict=True)]


async def _one(conn: Any, dim: int, m: int, efc: int, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(dim * 1000 + m * 10 + efc)
    await conn.execute("DROP TABLE IF EXISTS hnsw_probe")
    await conn.execute(f"CREATE TABLE hnsw_probe (id int PRIMARY KEY, v vector({dim}))")
    await conn.execute("ALTER TABLE hnsw_probe ALTER COLUMN v SET STORAGE MAIN")
    stored = [_unit([rng.gauss(0, 1) for _ in range(dim)]) for _ in range(args.rows)]
    await conn.copy_records_to_table(
        "hnsw_probe", records=[(i, Vector(v)) for i, v in enumerate(stored)], columns=["id", "v"]
    )
    await conn.execute("SET maintenance_work_mem = '512MB'")
    started = time.perf_counter()
    await conn.execute(
        f"CREATE INDEX hnsw_probe_v ON hnsw_probe USING hnsw (v vector_cosine_ops)"
        f" WITH (m = {m}, ef_construction = {efc})"
    )
    build_s = time.perf_counter() - started
    picked = rng.sample(range(args.rows), args.queries)
    queries = [(i, Vector(_near(stored[i], 0.95, rng))) for i in picked]
    out: dict[str, Any] = {"dim": dim, "m": m, "ef_construction": efc, "rows": args.rows,
                           "build_s": round(build_s, 1)}  # fmt: skip
    for ef in args.ef_search:
        hits, spent = 0, 0.0
        async with conn.transaction():
            await conn.execute(f"SET LOCAL hnsw.ef_search = {ef}; SET LOCAL enable_seqscan = off")
            for original, q in queries:
                t0 = time.perf_counter()
                top = await conn.fetchval("SELECT id FROM hnsw_probe ORDER BY v <=> $1 LIMIT 1", q)
                spent += time.perf_counter() - t0
                hits += top == original
        out[f"ef_search_{ef}"] = {"recall": round(hits / len(queries), 3),
                                  "search_ms": round(1000 * spent / len(queries), 2)}  # fmt: skip
    fresh = [Vector(_unit([rng.gauss(0, 1) for _ in range(dim)])) for _ in range(20)]
    t0 = time.perf_counter()
    async with conn.transaction():  # one commit: the rows' graph work, not 20 WAL flushes
        for i, v in enumerate(fresh):
            await conn.execute("INSERT INTO hnsw_probe VALUES ($1, $2)", args.rows + i, v)
    out["insert_ms_per_row"] = round(1000 * (time.perf_counter() - t0) / 20, 2)
    await conn.execute("DROP TABLE hnsw_probe")
    return out


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    url = await create_database(args.server_url, unique_name("fs_bench_hnsw"))
    await enable_vector(url)
    conn = await asyncpg.connect(url)
    await register_vector(conn)
    results = []
    try:
        for dim in args.dims:
            for m, efc in args.params:
                result = await _one(conn, dim, m, efc, args)
                print(json.dumps(result), flush=True)
                results.append(result)
    finally:
        await conn.close()
        await drop_database(args.server_url, url)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--dims", default="128,768")
    ap.add_argument("--rows", type=int, default=30_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--params", default="16:64,16:32,8:32", help="m:ef_construction,...")
    ap.add_argument("--ef-search", default="40,100")
    ap.add_argument("--server-url", default=os.environ.get("FACTSTREAM_DATABASE_URL", ""))
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()
    args.dims = [int(d) for d in args.dims.split(",")]
    args.params = [tuple(int(x) for x in p.split(":")) for p in args.params.split(",")]
    args.ef_search = [int(e) for e in args.ef_search.split(",")]
    results = asyncio.run(main_async(args))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
