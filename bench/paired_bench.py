"""Two fleets at once, A and B, differing only in the settings given: what a lever costs.

    .venv/bin/python -m bench.paired_bench --b FACTSTREAM_COMMIT_QUIET_MS=150
    .venv/bin/python -m bench.paired_bench --a FACTSTREAM_X=1 --b FACTSTREAM_X=2 --rate 25

This machine's speed swings by a third between runs minutes apart (bench/README.md), more
than most levers move the CPU per episode, so runs one after the other cannot tell them
apart. Here both fleets (six workers each, their own topics and database, the same broker
and Postgres server) take the same load in the same seconds: every round publishes
``--rate`` episodes a second to each, on fresh tenants, then one round at saturation.
Each round prints both fleets' worker CPU per episode, their Postgres sessions' CPU per
episode, and B against A. The broker is shared, so its CPU is not split between them.
Twelve workers, the bench's pools and its probes need about 150 Postgres connections:
the server's ``max_connections`` must allow it (the dev server's 100 does not: ``ALTER
SYSTEM SET max_connections = 250`` and restart it); the run checks before it starts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from bench._harness import REPO, reference_loop_ms
from bench._phase import Phase
from bench._scenario import FULL, Ctx
from bench._workload import Tenant, load_history, round_robin, tenants

# Twelve workers' pools, the two bench pools and the probes, with some room.
NEEDED_CONNECTIONS = 150
SIDES = ("A", "B")


def settings_pairs(values: list[str]) -> dict[str, str]:
    """``FACTSTREAM_X=V`` arguments as a mapping; anything else stops the run, named."""
    unset = [v for v in values if "=" not in v]
    if unset:
        raise SystemExit(f"not NAME=VALUE: {', '.join(unset)}")
    pairs = dict(v.split("=", 1) for v in values)
    wrong = [k for k in pairs if not k.startswith("FACTSTREAM_")]
    if wrong:
        raise SystemExit(f"not a factstream setting: {', '.join(wrong)}")
    return pairs


async def check_connections(server_url: str) -> None:
    conn = await asyncpg.connect(server_url)
    try:
        allowed = int(await conn.fetchval("SHOW max_connections"))
    finally:
        await conn.close()
    if allowed < NEEDED_CONNECTIONS:
        raise SystemExit(
            f"the Postgres server allows {allowed} connections; two fleets need about"
            f" {NEEDED_CONNECTIONS}: ALTER SYSTEM SET max_connections = 250, then restart it"
        )


def side_summary(run: dict[str, Any]) -> dict[str, Any]:
    cpu = run["cpu_ms_per_episode"]
    return {
        "workers_ms": cpu["workers_total"],
        "postgres_ms": cpu["postgres_backends"],
        "p95_s": (run["latency_s"] or {}).get("p95"),
        "episodes_per_s": run["episodes_per_s_steady"],
        "stages_ms": {s: v["cpu_ms_per_episode"] for s, v in run["stages"].items()},
    }


def pair_row(name: str, rate: float | None, ref_ms: float, runs: list[dict[str, Any]]
             ) -> dict[str, Any]:  # fmt: skip
    """One round: both fleets' costs, and B's worker and Postgres CPU against A's."""
    row: dict[str, Any] = {"round": name, "rate": rate, "reference_loop_ms": ref_ms}
    row |= {side: side_summary(r) for side, r in zip(SIDES, runs, strict=True)}
    for what in ("workers_ms", "postgres_ms"):
        a, b = row["A"][what], row["B"][what]
        row[f"{what}_b_over_a"] = round(b / a, 3) if a else None
    return row


async def run_pairs(args: argparse.Namespace, envs: dict[str, dict[str, str]]) -> list[Any]:
    await check_connections(args.server_url)
    run = f"p{uuid.uuid4().hex[:5]}"
    ctx = Ctx(args, FULL, run, Path(args.log_dir) / run)
    per_round = int(args.rate * args.seconds)
    names = [*(f"r{i}" for i in range(args.rounds)), "saturation"]
    rounds: list[Any] = []
    async with contextlib.AsyncExitStack() as stack:
        sides: dict[str, tuple[Phase, dict[str, list[Tenant]]]] = {}
        for side in SIDES:
            url, pool = await stack.enter_async_context(ctx.database(args.dim))
            ts = {"warm": tenants(f"{run}{side}w", args.warmup)}
            ts |= {name: tenants(f"{run}{side}{name}", per_round) for name in names}
            await load_history(url, [t for group in ts.values() for t in group])
            _, phase = await stack.enter_async_context(
                ctx.fleet(url, args.dim, side, args.concurrency, envs[side])
            )
            phase.pool = pool
            sides[side] = (phase, ts)
        print(f"warm-up: {args.warmup} episodes per fleet ...", flush=True)
        await asyncio.gather(*(p.run(round_robin(ts["warm"], 1)) for p, ts in sides.values()))
        for name in names:
            rate = None if name == "saturation" else args.rate
            ref = reference_loop_ms()
            runs = await asyncio.gather(
                *(p.run(round_robin(ts[name], 1), rate=rate) for p, ts in sides.values())
            )
            row = pair_row(name, rate, ref, runs)
            print(json.dumps(row), flush=True)
            rounds.append(row)
    return rounds


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--a", action="append", default=[], metavar="FACTSTREAM_X=V")
    ap.add_argument("--b", action="append", default=[], metavar="FACTSTREAM_X=V")
    ap.add_argument("--rate", type=float, default=25.0, help="episodes/s to each fleet")
    ap.add_argument("--seconds", type=float, default=20.0, help="per paced round")
    ap.add_argument("--rounds", type=int, default=4, help="paced rounds")
    ap.add_argument("--warmup", type=int, default=500, help="episodes per fleet, not measured")
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--partitions", type=int, default=12)
    ap.add_argument(
        "--bootstrap",
        default=os.environ.get("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
    )
    ap.add_argument("--server-url", default=os.environ.get("FACTSTREAM_DATABASE_URL"))
    ap.add_argument("--log-dir", default=str(REPO / "bench" / "out" / "logs"))
    ap.add_argument("--out", default=str(REPO / "bench" / "out" / "paired.json"))
    args = ap.parse_args()
    if not args.server_url:
        raise SystemExit("set FACTSTREAM_DATABASE_URL or --server-url (a Postgres server URL)")
    args.keep, args.profile = False, None  # what Ctx reads besides the above
    envs = {"A": settings_pairs(args.a), "B": settings_pairs(args.b)}
    rounds = asyncio.run(run_pairs(args, envs))
    Path(args.out).write_text(json.dumps({"a": envs["A"], "b": envs["B"], "rounds": rounds},
                                         indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
