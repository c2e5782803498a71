"""The full-pipeline benchmark (issue 8): six real worker processes, real Kafka and Postgres.

    make bench                                   # full run (~10 min), infra via `dev up`
    .venv/bin/python -m bench.pipeline_bench --quick           # smoke test, < 2 min
    .venv/bin/python -m bench.pipeline_bench --only a,c        # some scenarios

Scenarios (bench/README.md says what each measures and how):
(a) instant model: episodes/s, publish->commit p50/p95/p99, CPU per episode per stage,
    peak RSS per worker; then paced runs at rising rates up to the first one above
    capacity, and p95 at the highest below it;
(b) simulated model latency (extract 2 s, judge 1 s, summary 1 s, embed 150 ms, jittered)
    over 1,000 tenants against the concurrency bound, and the same pipeline at
    concurrency 1 (the baseline);
(c) per-episode database time at 1k, 10k and 100k live facts per tenant;
(d) model calls and tokens per episode, from llm_calls.
Writes bench/results.json and bench/results.md and prints the Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench._harness import REPO, reference_loop_ms
from bench._phase import Phase, below_capacity
from bench._report import evaluate, render
from bench._scale import run_scale
from bench._scenario import FULL, QUICK, Ctx
from bench._workload import (
    Tenant,
    build_tenant_indexes,
    calls_per_episode,
    load_history,
    load_live_facts,
    loaded_tenants,
    round_robin,
    tenants,
)

# Small tenants (15 live facts each, as in (a)) beside (c)'s big ones.
SMALL_TENANTS = 2_000
LATENCY = {"extract": 2.0, "judge": 1.0, "summarize": 1.0, "embed": 0.15}


async def scenario_a(ctx: Ctx) -> dict[str, Any]:
    p, dim = ctx.plan, ctx.args.dim
    async with ctx.database(dim) as (url, pool):
        warm_t = tenants(f"{ctx.run}w", p.a_warmup)
        sat_t = tenants(f"{ctx.run}a", p.a_tenants)
        low_t = tenants(f"{ctx.run}l", int(p.low_rate * p.paced_s))
        # Every rung's tenants are loaded here too, outside any measured phase: rungs that
        # followed their own bulk load (COPY, ANALYZE) sometimes started slow.
        rungs = {rate: tenants(f"{ctx.run}p{rate:g}-", int(rate * p.paced_s))
                 for rate in p.paced_rates}  # fmt: skip
        await load_history(
            url, [*warm_t, *sat_t, *low_t, *(t for ts in rungs.values() for t in ts)]
        )
        async with ctx.fleet(url, dim, "a", ctx.args.concurrency, profile=True) as (fleet, phase):
            phase.pool = pool
            print(f"(a) warm-up: {p.a_warmup} episodes, not measured ...", flush=True)
            await phase.run(round_robin(warm_t, 1))
            print(f"(a) saturation: {p.a_tenants * p.a_per_tenant} episodes ...", flush=True)
            saturation = await phase.run(round_robin(sat_t, p.a_per_tenant))
            ladder = await _paced_ladder(rungs, phase)
            print(f"(a) paced: {len(low_t)} episodes at {p.low_rate:.0f}/s ...", flush=True)
            low = await phase.run(round_robin(low_t, 1), rate=p.low_rate)
            rss = fleet.peak_rss_mb()
        calls = await calls_per_episode(pool, [t.dataset for t in sat_t])
    below = [run for run in ladder if run["below_capacity"]]
    return {"saturation": saturation, "paced": below[-1] if below else None,
            "paced_ladder": ladder, "paced_low": {"rate": p.low_rate, **low},
            "peak_rss_mb": rss, "calls": calls,
            "concurrency": ctx.args.concurrency, "tenants": p.a_tenants,
            "episodes_per_tenant": p.a_per_tenant, "embedding_dim": dim}  # fmt: skip


async def _paced_ladder(rungs: dict[float, list[Tenant]], phase: Phase) -> list[dict[str, Any]]:
    """Paced runs at rising rates, each on tenants of its own, up to and including the
    first above capacity."""
    ladder: list[dict[str, Any]] = []
    for rate, ts in rungs.items():
        print(f"(a) paced: {len(ts)} episodes at {rate:g}/s ...", flush=True)
        run = await phase.run(round_robin(ts, 1), rate=rate)
        ladder.append({"rate": rate, "below_capacity": below_capacity(run, rate), **run})
        if not ladder[-1]["below_capacity"]:
            break
    return ladder


async def _latency_run(ctx: Ctx, url: str, pool: Any, name: str, concurrency: int,
                       n_tenants: int) -> dict[str, Any]:  # fmt: skip
    ts = tenants(f"{ctx.run}{name[0]}", n_tenants)
    await load_history(url, ts)
    env = {"FACTSTREAM_BENCH_LATENCY": ",".join(f"{k}={v}" for k, v in LATENCY.items()),
           "FACTSTREAM_BENCH_JITTER": str(ctx.args.jitter)}  # fmt: skip
    async with ctx.fleet(url, ctx.args.dim, name, concurrency, env) as (fleet, phase):
        phase.pool = pool
        print(f"(b) {name}: {n_tenants} tenants, concurrency {concurrency} ...", flush=True)
        result = await phase.run(round_robin(ts, 1))
        result["peak_rss_mb"] = fleet.peak_rss_mb()
    result["calls"] = await calls_per_episode(pool, [t.dataset for t in ts])
    return result


async def scenario_b(ctx: Ctx) -> dict[str, Any]:
    c = ctx.args.concurrency
    async with ctx.database(ctx.args.dim) as (url, pool):
        concurrent = await _latency_run(ctx, url, pool, "concurrent", c, ctx.plan.b_tenants)
        baseline = await _latency_run(ctx, url, pool, "baseline", 1, ctx.plan.baseline_episodes)
    return {"latency_s": LATENCY, "jitter": ctx.args.jitter, "concurrency": c,
            "bound": bound(c), "baseline_bound": bound(1),
            "concurrent": concurrent, "baseline": baseline}  # fmt: skip


def bound(concurrency: int) -> dict[str, Any]:
    """Throughput the concurrency allows if handlers cost only their model time: per stage,
    concurrency / (model seconds per episode); the pipeline's bound is the smallest."""
    model_s = {
        "summarize": LATENCY["summarize"] + LATENCY["embed"], "extract": LATENCY["extract"],
        "resolve": LATENCY["embed"], "dedup": LATENCY["embed"], "judge": LATENCY["judge"],
    }  # fmt: skip
    per_stage = {s: round(concurrency / t, 2) for s, t in model_s.items()}
    limiting = min(per_stage, key=lambda s: per_stage[s])
    return {"per_stage_episodes_per_s": per_stage, "limiting_stage": limiting,
            "episodes_per_s": per_stage[limiting]}  # fmt: skip


async def scenario_c(ctx: Ctx) -> dict[str, Any]:
    dim, reuse, p = ctx.args.scale_dim, ctx.args.scale_db, ctx.plan
    async with ctx.database(dim, reuse) as (url, pool):
        started = time.perf_counter()
        if reuse:
            sized, first_k = await loaded_tenants(pool, p.c_sizes)
        else:
            names = tenants(f"{ctx.run}c", len(p.c_sizes))
            sized, first_k = dict(zip(p.c_sizes, names, strict=True)), 1
            print(f"(c) loading {sum(sized)} live facts ({dim}-dim vectors) ...", flush=True)
            # Most of a service's tenants are small: with only the big ones, the planner's
            # statistics would say every tenant is big, and a plan that reads a whole
            # tenant would look as cheap for the 100k one as it is for a small one.
            await load_history(url, [*names, *tenants(f"{ctx.run}s", SMALL_TENANTS)])
            for n, tenant in sized.items():
                await load_live_facts(url, tenant, n, dim)
            built = await build_tenant_indexes(url)
            print(f"(c) built {len(built)} per-tenant vector indexes", flush=True)
        load_s = time.perf_counter() - started
        async with ctx.fleet(url, dim, "c", ctx.args.concurrency) as (fleet, phase):
            print("(c) episodes, one at a time, sizes interleaved ...", flush=True)
            sizes = await run_scale(
                fleet, phase.probe, pool, phase.settings, sized, p.c_rounds, p.c_block, first_k
            )
    return {"embedding_dim": dim, "load_s": round(load_s, 1), "sizes": sizes}


def _git_head() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                             capture_output=True, text=True, check=True)  # fmt: skip
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    plan = QUICK if args.quick else FULL
    run = f"b{uuid.uuid4().hex[:6]}"
    ctx = Ctx(args, plan, run, Path(args.log_dir) / run)
    results: dict[str, Any] = {"meta": {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git": _git_head(),
        "mode": "quick" if args.quick else "full", "plan": asdict(plan),
        "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        "partitions": args.partitions, "logs": str(ctx.log_dir),
        "reference_loop_ms": {"start": reference_loop_ms()},
    }}  # fmt: skip
    wanted = set(args.only.split(","))
    for name, scenario in (("a", scenario_a), ("b", scenario_b), ("c", scenario_c)):
        if name in wanted:
            t0, ref = time.perf_counter(), reference_loop_ms()
            results[name] = await scenario(ctx)
            results[name]["reference_loop_ms_before"] = ref
            results[name]["scenario_s"] = round(time.perf_counter() - t0, 1)
    results["meta"]["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["meta"]["reference_loop_ms"]["end"] = reference_loop_ms()
    results["targets"] = evaluate(results)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small counts (< 2 min)")
    ap.add_argument("--only", default="a,b,c", help="scenarios to run, e.g. a,c")
    ap.add_argument(
        "--bootstrap",
        default=os.environ.get("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
    )
    ap.add_argument(
        "--server-url",
        default=os.environ.get(
            "FACTSTREAM_DATABASE_URL", "postgresql://postgres:@/postgres?host=/tmp/shared-pg"
        ),
        help="a Postgres SERVER url: the bench creates (and drops) its own databases",
    )
    ap.add_argument("--dim", type=int, default=768, help="embedding dim for (a) and (b)")
    ap.add_argument("--scale-dim", type=int, default=128, help="embedding dim for (c)")
    ap.add_argument("--concurrency", type=int, default=32, help="per worker (default setting)")
    ap.add_argument("--partitions", type=int, default=12)
    ap.add_argument("--jitter", type=float, default=0.25, help="model latency +- fraction")
    ap.add_argument("--keep", action="store_true", help="keep the bench databases")
    ap.add_argument(
        "--scale-db",
        default=None,
        help="(c) on a database a --keep run loaded (skips the bulk load)",
    )
    ap.add_argument(
        "--profile",
        default=None,
        help="investigation: profile the (a) workers by main-thread CPU time"
        " into DIR/a/<stage>.prof",
    )
    ap.add_argument("--log-dir", default=str(REPO / "bench" / "out" / "logs"))
    ap.add_argument(
        "--out",
        default=None,
        help="writes <out>.json and <out>.md (default"
        " bench/results, or bench/out/quick-results with --quick)",
    )
    args = ap.parse_args()
    if args.out is None:
        args.out = str(REPO / "bench" / ("out/quick-results" if args.quick else "results"))
    results = asyncio.run(main_async(args))
    text = render(results)
    Path(f"{args.out}.json").write_text(json.dumps(results, indent=2) + "\n")
    Path(f"{args.out}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
