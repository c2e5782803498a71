"""The paired bench (bench/paired_bench.py): which settings each fleet gets, and how a
round sets B's costs against A's."""

from __future__ import annotations

from typing import Any

import pytest

from bench.paired_bench import pair_row, settings_pairs


def test_each_fleet_gets_factstream_settings_and_nothing_else() -> None:
    assert settings_pairs(["FACTSTREAM_COMMIT_QUIET_MS=150", "FACTSTREAM_X=a=b"]) == {
        "FACTSTREAM_COMMIT_QUIET_MS": "150",
        "FACTSTREAM_X": "a=b",
    }
    with pytest.raises(SystemExit, match="not a factstream setting: PATH"):
        settings_pairs(["PATH=/tmp", "FACTSTREAM_X=1"])
    with pytest.raises(SystemExit, match="not NAME=VALUE: FACTSTREAM_X"):
        settings_pairs(["FACTSTREAM_X"])


def run(workers_ms: float, postgres_ms: float) -> dict[str, Any]:
    return {
        "cpu_ms_per_episode": {"workers_total": workers_ms, "postgres_backends": postgres_ms},
        "latency_s": {"p95": 0.4},
        "episodes_per_s_steady": 25.0,
        "stages": {"extract": {"cpu_ms_per_episode": workers_ms / 2}},
    }


def test_a_round_sets_b_against_a() -> None:
    row = pair_row("r0", 25.0, 60.0, [run(16.0, 8.0), run(15.2, 8.4)])
    assert row["A"]["workers_ms"] == 16.0 and row["B"]["stages_ms"] == {"extract": 7.6}
    assert row["workers_ms_b_over_a"] == 0.95
    assert row["postgres_ms_b_over_a"] == 1.05
