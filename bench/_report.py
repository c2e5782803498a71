"""The benchmark's targets, checked against the results, and the Markdown summary."""

from __future__ import annotations

from typing import Any

STAGE_ORDER = ("summarize", "extract", "resolve", "dedup", "judge", "write")
EXACT_CALLS = {"summarize": (1, 1), "extract": (1, 1), "judge": (0, 1), "embed": (3, 3)}


def _target(name: str, want: str, got: Any, met: bool | None) -> dict[str, Any]:
    return {"target": name, "wanted": want, "measured": got, "met": met}


def _calls_ok(calls: dict[str, Any]) -> bool:
    return all(
        kind in calls and calls[kind]["calls_min"] >= lo and calls[kind]["calls_max"] <= hi
        for kind, (lo, hi) in EXACT_CALLS.items()
    )


def evaluate(r: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    if "a" in r:
        rate = r["a"]["saturation"]["episodes_per_s_steady"]
        out.append(
            _target(
                "(a) throughput, instant model",
                ">= 200 episodes/s",
                rate,
                rate is not None and rate >= 200,
            )
        )
        out.append(_paced_target(r["a"]["paced"]))
        out += _per_episode_targets(r["a"]["saturation"])
    if "b" in r:
        b = r["b"]
        got = b["concurrent"]["episodes_per_s_steady"]
        # Too few baseline episodes for a steady window (the quick run): the whole run.
        base = b["baseline"]["episodes_per_s_steady"] or b["baseline"]["episodes_per_s_whole_run"]
        share = round(got / b["bound"]["episodes_per_s"], 3) if got else None
        speedup = round(got / base, 1) if got and base else None
        out.append(
            _target(
                "(b) share of the concurrency bound",
                ">= 0.90",
                share,
                share is not None and share >= 0.9,
            )
        )
        out.append(_target("(b) speed-up over concurrency 1", ">= 20x", speedup,
                           speedup is not None and speedup >= 20))  # fmt: skip
    if "c" in r:
        sizes = r["c"]["sizes"]
        small, big = sizes[min(sizes, key=int)], sizes[max(sizes, key=int)]
        key = "db_ms_per_episode_median_block"
        key = key if key in small and key in big else "db_ms_per_episode"
        growth = round(big[key] / small[key], 2)
        label = f"(c) db time {max(sizes, key=int)} / {min(sizes, key=int)} live facts"
        out.append(_target(label + " (median block)", "<= 2.0x", growth, growth <= 2.0))
        mean = round(big["db_ms_per_episode"] / small["db_ms_per_episode"], 2)
        out.append(_target(label + " (mean)", "-", mean, None))
    for key, where in (("a", ("a", "calls")), ("b", ("b", "concurrent", "calls"))):
        if key in r:
            calls: Any = r
            for part in where:
                calls = calls[part]
            out.append(_target(f"(d) calls per episode ({key})",
                               "summary 1, extract 1, judge <= 1, embed 3",
                               {k: [v["calls_min"], v["calls_max"]] for k, v in calls.items()},
                               _calls_ok(calls)))  # fmt: skip
    return out


def _paced_target(paced: dict[str, Any] | None) -> dict[str, Any]:
    """p95 at the highest paced rate that stayed below capacity (none: not met)."""
    if paced is None:
        return _target("(a) p95 publish->commit, no paced rate below capacity", "<= 1.0 s",
                       None, False)  # fmt: skip
    p95 = (paced["latency_s"] or {}).get("p95")
    return _target(f"(a) p95 publish->commit, at {paced['rate']:g} episodes/s: the highest "
                   "paced rate below capacity", "<= 1.0 s", p95,
                   p95 is not None and p95 <= 1.0)  # fmt: skip


def _per_episode_targets(sat: dict[str, Any]) -> list[dict[str, Any]]:
    """What one episode costs: CPU (workers, Postgres, broker), stage-topic bytes against
    its input event, database round trips."""
    cpu = sat["cpu_ms_per_episode"]
    total = round(cpu["workers_total"] + cpu["postgres_backends"] + cpu["kafka_broker_shared"], 1)
    out = [_target("(a) CPU per episode", "<= 25 ms", total, total <= 25)]
    moved = sat.get("stage_topic_bytes_per_episode")
    if moved is not None:
        limit = round(2 * sat["input_event_bytes_per_episode"] + 8192)
        out.append(_target("(a) stage-topic bytes per episode",
                           f"<= 2x input + 8 KB = {limit}", moved["total"],
                           moved["total"] <= limit))  # fmt: skip
        trips = sat["round_trips_per_episode"]
        out.append(_target("(a) database round trips per episode", "<= 25", trips, trips <= 25))
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _stages(res: dict[str, Any], rss: dict[str, float] | None) -> list[str]:
    def produced(stage: str) -> float | None:
        sizes = res["stages"][stage].get("bytes_per_episode")
        return None if sizes is None else round(sum(sizes.values()), 1)

    rows = [[s, res["stages"][s]["cpu_ms_per_episode"],
             res["stages"][s].get("postgres_cpu_ms_per_episode"),
             res["stages"][s]["handler_ms_mean"], res["stages"][s].get("round_trips_per_episode"),
             res["stages"][s].get("commits_per_s"), produced(s), (rss or {}).get(s)]
            for s in STAGE_ORDER if s in res["stages"]]  # fmt: skip
    cpu = res["cpu_ms_per_episode"]
    none6 = [None] * 6
    rows += [["all workers", cpu["workers_total"], None, None,
              res.get("round_trips_per_episode"), None,
              (res.get("stage_topic_bytes_per_episode") or {}).get("total"), None],
             ["postgres backends (bench db)", cpu["postgres_backends"], *none6],
             ["kafka broker (shared)", cpu["kafka_broker_shared"], *none6],
             ["bench publisher", cpu["bench_publisher"], *none6]]  # fmt: skip
    head = ["stage", "CPU ms / episode", "its Postgres sessions' CPU ms / episode",
            "handler ms (mean)", "DB round trips / episode", "commits / s",
            "bytes produced / episode", "peak RSS MB"]  # fmt: skip
    lines = _table(head, rows)
    moved = res.get("stage_topic_bytes_per_episode")
    if moved:
        lines += [f"Bytes per episode by topic: {moved['by_topic']}; input event "
                  f"{res.get('input_event_bytes_per_episode')} bytes.", ""]  # fmt: skip
    return lines


def _ladder(a: dict[str, Any]) -> list[dict[str, Any]]:
    """The paced runs of (a); results from before the ladder hold one, at 50/s."""
    if "paced_ladder" in a:
        return list(a["paced_ladder"])
    return [a["paced"]] if a.get("paced") else []


def _rung_name(run: dict[str, Any]) -> str:
    name = f"paced {run['rate']:g}/s"
    if "below_capacity" not in run:
        return name
    verdict = "below capacity" if run["below_capacity"] else "**above capacity**"
    growth = run.get("queue_growth_s")
    steady = run.get("episodes_per_s_steady")
    kept = "" if steady is None else f", {100 * steady / run['rate']:.1f}% of the rate kept"
    return (f"{name} ({verdict}, queue growth {'-' if growth is None else f'{growth:+g} s'}"
            f"{kept})")  # fmt: skip


def _run_line(name: str, res: dict[str, Any]) -> list[Any]:
    lat = res["latency_s"] or {}
    return [name, res["episodes"], res["episodes_per_s_steady"], res["episodes_per_s_whole_run"],
            lat.get("p50"), lat.get("p95"), lat.get("p99"), res["load_avg_before"][0],
            res["load_avg_after"][0]]  # fmt: skip


def _speed(r: dict[str, Any]) -> list[str]:
    """The machine's speed beside the figures (bench/_harness.py, reference_loop_ms)."""
    ref = r["meta"].get("reference_loop_ms")
    if not ref:
        return []
    per = ", ".join(f"before ({s}) {r[s]['reference_loop_ms_before']}" for s in "abc"
                    if s in r and "reference_loop_ms_before" in r[s])  # fmt: skip
    return [f"Reference loop (a fixed pure-Python loop, best of 3; lower is a faster machine): "
            f"{ref.get('start')} ms at start{', ' + per if per else ''}, "
            f"{ref.get('end')} ms at end.", ""]  # fmt: skip


def render(r: dict[str, Any]) -> str:
    m = r["meta"]
    out = [f"# factstream pipeline benchmark ({m['mode']})", "",
           f"Run {m['started']} at git {m['git']} on {m['cpus']} CPUs, Python {m['python']}; "
           f"load average {m['load_avg_at_start'][0]} at start, {m['load_avg_at_end'][0]} at "
           "end. Six worker processes (`factstream worker <stage>`), real Kafka and Postgres, "
           "all on this machine. See bench/README.md for the method.", "",
           *_speed(r), "## Targets", ""]  # fmt: skip
    out += _table(["target", "wanted", "measured", "met"],
                  [[t["target"], t["wanted"], t["measured"],
                    "-" if t["met"] is None else "yes" if t["met"] else "**no**"]
                   for t in r["targets"]])  # fmt: skip
    runs_head = ["run", "episodes", "eps/s steady", "eps/s whole", "p50 s", "p95 s", "p99 s",
                 "load before", "load after"]  # fmt: skip
    if "a" in r:
        a = r["a"]
        out += [f"## (a) Instant model ({a['tenants']} tenants, concurrency {a['concurrency']}, "
                f"{a['embedding_dim']}-dim embeddings)", ""]  # fmt: skip
        out += _table(
            runs_head,
            [
                _run_line("saturation", a["saturation"]),
                *[_run_line(_rung_name(run), run) for run in _ladder(a)],
                _run_line(f"paced {a['paced_low']['rate']:g}/s", a["paced_low"]),
            ],
        )
        cpu = a["saturation"]["cpu_ms_per_episode"]
        total = cpu["workers_total"] + cpu["postgres_backends"] + cpu["kafka_broker_shared"]
        ceiling = m["cpus"] * 1000 / total if total else 0
        out += [
            f"CPU per episode (saturation run): {total:.1f} ms for workers, Postgres and "
            f"the broker together, so at most {ceiling:.0f} episodes/s on {m['cpus']} "
            "cores with nothing else running.",
            "",
        ]
        out += _stages(a["saturation"], a["peak_rss_mb"])
    if "b" in r:
        b = r["b"]
        out += [f"## (b) Simulated model latency {b['latency_s']} (+-{b['jitter']:.0%})", "",
                f"Bound at concurrency {b['concurrency']}: {b['bound']['episodes_per_s']} eps/s "
                f"({b['bound']['limiting_stage']}: concurrency / model seconds per episode; "
                f"per stage {b['bound']['per_stage_episodes_per_s']}). Baseline bound "
                f"{b['baseline_bound']['episodes_per_s']} eps/s.", ""]  # fmt: skip
        out += _table(
            runs_head,
            [
                _run_line(f"concurrency {b['concurrency']}", b["concurrent"]),
                _run_line("concurrency 1 (baseline)", b["baseline"]),
            ],
        )
        out += ["Handler time per stage, concurrency run:", ""]
        out += _stages(b["concurrent"], b["concurrent"].get("peak_rss_mb"))
    if "c" in r:
        c = r["c"]
        out += [f"## (c) Scale ({c['embedding_dim']}-dim vectors, bulk load {c['load_s']} s)", ""]
        sizes = sorted(c["sizes"], key=int)
        rows = [[s, c["sizes"][s]["live_facts"], c["sizes"][s]["episodes"],
                 *[c["sizes"][s]["handler_ms_per_episode"].get(st) for st in STAGE_ORDER],
                 c["sizes"][s]["db_ms_per_episode"],
                 c["sizes"][s].get("db_ms_per_episode_median_block"),
                 c["sizes"][s]["postgres_cpu_ms_per_episode"],
                 c["sizes"][s].get("round_trips_per_episode"),
                 c["sizes"][s].get("stage_topic_bytes_per_episode"),
                 c["sizes"][s]["latency_s_median"],
                 c["sizes"][s].get("graft_ms_per_episode")] for s in sizes]  # fmt: skip
        out += _table(["size", "live facts", "episodes", *[f"{s} ms" for s in STAGE_ORDER],
                       "total ms", "median block ms", "PG CPU ms", "round trips", "bytes",
                       "latency s",
                       "sweep graft ms"], rows)  # fmt: skip
    for key, title in (("a", "instant model run"), ("b", "latency run")):
        calls = (
            (r.get(key) or {}).get("calls")
            if key == "a"
            else ((r.get(key) or {}).get("concurrent", {}).get("calls"))
        )
        if calls:
            out += [f"## (d) Model calls and tokens per episode ({title}, from llm_calls)", ""]
            out += _table(["kind", "episodes", "calls mean", "min", "max", "tokens in",
                           "tokens out"],
                          [[k, v["episodes"], v["calls_mean"], v["calls_min"], v["calls_max"],
                            v["tokens_in_mean"], v["tokens_out_mean"]]
                           for k, v in sorted(calls.items())])  # fmt: skip
    return "\n".join(out)
