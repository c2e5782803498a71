"""The bench's verdicts (bench/_report.py) and its Postgres CPU split by stage
(bench/_probe.py): what `make bench` prints as met / not met must follow the figures."""

from __future__ import annotations

from typing import Any

from bench._probe import Probe
from bench._report import evaluate

CALLS_OK = {k: {"calls_min": lo, "calls_max": hi}
            for k, (lo, hi) in {"summarize": (1, 1), "extract": (1, 1), "judge": (1, 1),
                                "embed": (3, 3)}.items()}  # fmt: skip


def results(
    rate: float, p95: float, db_1k: float, db_100k: float, embeds: int, cpu: float = 40.0,
    moved: float = 12_000.0, trips: float = 30.0, medians: tuple[float, float] | None = None,
) -> dict[str, Any]:  # fmt: skip
    calls = {**CALLS_OK, "embed": {"calls_min": embeds, "calls_max": embeds}}
    out: dict[str, Any]
    saturation = {
        "episodes_per_s_steady": rate,
        "cpu_ms_per_episode": {"workers_total": cpu / 2, "postgres_backends": cpu / 4,
                               "kafka_broker_shared": cpu / 4},
        "stage_topic_bytes_per_episode": {"total": moved, "by_topic": {}},
        "input_event_bytes_per_episode": 1000.0,
        "round_trips_per_episode": trips,
    }  # fmt: skip
    out = {
        "a": {"saturation": saturation,
              "paced": {"rate": 50.0, "latency_s": {"p95": p95}}, "calls": calls},
        "b": {"concurrent": {"episodes_per_s_steady": 15.0, "calls": CALLS_OK},
              "baseline": {"episodes_per_s_steady": 0.5, "episodes_per_s_whole_run": 0.4},
              "bound": {"episodes_per_s": 16.0}},
        "c": {"sizes": {"1000": {"db_ms_per_episode": db_1k},
                        "100000": {"db_ms_per_episode": db_100k}}},
    }  # fmt: skip
    if medians is not None:  # each size's median block, which the target reads
        for size, median in zip(("1000", "100000"), medians, strict=True):
            out["c"]["sizes"][size]["db_ms_per_episode_median_block"] = median
    return out


def verdicts(r: dict[str, Any]) -> dict[str, Any]:
    return {row["target"].split(",")[0]: (row["measured"], row["met"]) for row in evaluate(r)}


def test_each_target_is_met_or_missed_by_its_own_figure() -> None:
    got = verdicts(results(rate=30.0, p95=24.2, db_1k=100.0, db_100k=175.0, embeds=3))
    assert got["(a) throughput"] == (30.0, False)
    assert got["(a) p95 publish->commit"] == (24.2, False)
    assert got["(b) share of the concurrency bound"] == (0.938, True)
    assert got["(b) speed-up over concurrency 1"] == (30.0, True)
    assert got["(c) db time 100000 / 1000 live facts (median block)"] == (1.75, True)
    assert got["(c) db time 100000 / 1000 live facts (mean)"] == (1.75, None)
    assert got["(d) calls per episode (a)"][1] is True
    assert got["(a) CPU per episode"] == (40.0, False)
    assert got["(a) stage-topic bytes per episode"] == (12_000.0, False)  # > 2 x 1000 + 8192
    assert got["(a) database round trips per episode"] == (30.0, False)

    got = verdicts(results(rate=210.0, p95=0.8, db_1k=100.0, db_100k=250.0, embeds=4,
                           cpu=24.0, moved=10_000.0, trips=25.0))  # fmt: skip
    assert got["(a) CPU per episode"] == (24.0, True)
    assert got["(a) stage-topic bytes per episode"] == (10_000.0, True)
    assert got["(a) database round trips per episode"] == (25.0, True)
    assert got["(a) throughput"] == (210.0, True)
    assert got["(a) p95 publish->commit"] == (0.8, True)
    assert got["(c) db time 100000 / 1000 live facts (median block)"] == (2.5, False)
    assert got["(d) calls per episode (a)"][1] is False  # four embedding batches


def test_the_scale_target_reads_the_median_block_when_there_is_one() -> None:
    # A stall inflated the 1k tenant's mean: the median blocks decide, the mean is shown.
    got = verdicts(results(rate=80.0, p95=0.8, db_1k=90.0, db_100k=150.0, embeds=3,
                           medians=(50.0, 110.0)))  # fmt: skip
    assert got["(c) db time 100000 / 1000 live facts (median block)"] == (2.2, False)
    assert got["(c) db time 100000 / 1000 live facts (mean)"] == (1.67, None)


def test_postgres_cpu_is_split_by_the_stage_owning_each_backend() -> None:
    before = {"pg": {11: 1.0, 12: 2.0}, "kafka": {}, "t": 0.0, "owner": {11: "factstream-write"}}
    after = {"pg": {11: 3.5, 12: 2.5, 13: 0.25}, "kafka": {}, "t": 10.0,
             "owner": {11: "factstream-write", 12: "factstream-judge"}}  # fmt: skip
    diff = Probe.diff(after, before)
    assert diff["pg_cpu_s"] == 3.25
    # 13 connected during the phase and never named: counted, as "other".
    assert diff["pg_cpu_s_by_app"] == {"factstream-write": 2.5, "factstream-judge": 0.5,
                                       "other": 0.25}  # fmt: skip


def test_results_md_names_the_machine_speed_of_the_run() -> None:
    from bench._report import _speed

    r = results(rate=80.0, p95=0.8, db_1k=40.0, db_100k=70.0, embeds=3)
    r["meta"] = {"reference_loop_ms": {"start": 81.5, "end": 120.25}}
    r["a"]["reference_loop_ms_before"] = 90.0
    (line, _blank) = _speed(r)
    assert "81.5 ms at start" in line
    assert "before (a) 90.0" in line
    assert "120.25 ms at end" in line
    assert _speed({"meta": {}}) == []  # results of older runs carry no timing


def test_the_latency_target_reads_the_highest_paced_rate_below_capacity() -> None:
    from bench._report import _ladder, _rung_name

    def rung(rate: float, p95: float, below: bool) -> dict[str, Any]:
        return {"rate": rate, "below_capacity": below, "queue_growth_s": 0.1 if below else 2.5,
                "latency_s": {"p50": p95 / 2, "p95": p95, "p99": p95}, "episodes": 20 * rate,
                "episodes_per_s_steady": rate if below else 0.9 * rate,
                "episodes_per_s_whole_run": rate,
                "load_avg_before": [1.0], "load_avg_after": [1.0]}  # fmt: skip

    r = results(rate=80.0, p95=0.0, db_1k=40.0, db_100k=70.0, embeds=3)
    ladder = [rung(30, 0.5, True), rung(40, 0.9, True), rung(50, 3.0, False)]
    r["a"].update(paced=ladder[1], paced_ladder=ladder)
    row = next(t for t in evaluate(r) if t["target"].startswith("(a) p95"))
    assert (row["measured"], row["met"]) == (0.9, True)
    assert "at 40 episodes/s" in row["target"]

    r["a"]["paced"] = None  # not even the lowest rate kept up
    row = next(t for t in evaluate(r) if t["target"].startswith("(a) p95"))
    assert (row["measured"], row["met"]) == (None, False)

    # results.md names every rung with its verdict; older results hold one 50/s run.
    assert [_rung_name(run) for run in _ladder(r["a"])] == [
        "paced 30/s (below capacity, queue growth +0.1 s, 100.0% of the rate kept)",
        "paced 40/s (below capacity, queue growth +0.1 s, 100.0% of the rate kept)",
        "paced 50/s (**above capacity**, queue growth +2.5 s, 90.0% of the rate kept)",
    ]
    old = {"paced": {"rate": 50.0, "latency_s": {"p95": 0.8}}}
    assert [_rung_name(run) for run in _ladder(old)] == ["paced 50/s"]


def test_each_stage_reports_its_commits_per_second_over_the_phase() -> None:
    from bench._phase import summarise

    sent = {("d", f"e{i}"): 100.0 for i in range(4)}
    done = {("d", f"e{i}"): 100.5 + 0.5 * i for i in range(4)}  # last commit 2 s after publish
    counters = {"cpu_s": 0.1, "handler_s": 0.2, "records": 4.0, "round_trips": 8.0}
    workers = {"extract": {**counters, "commits": 10.0}, "write": {**counters, "commits": 3.0}}
    servers = {"pg_cpu_s": 0.1, "kafka_cpu_s": 0.1, "pg_cpu_s_by_app": {}}
    got = summarise(4, sent, done, workers, servers, 0.0, (0, 0, 0), (0, 0, 0), {})
    assert got["stages"]["extract"]["commits"] == 10
    assert got["stages"]["extract"]["commits_per_s"] == 5.0
    assert got["stages"]["write"]["commits_per_s"] == 1.5
