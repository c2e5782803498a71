"""The short fault drill (chaos/, profile "short"): ~60 episodes, kill -9 of a few real
worker processes, 20% model faults below the provider's retry loop, the poison corpus.

It runs the pipeline twice as OS processes on the session's Kafka and Postgres (never
restarted here: they may be shared), once fault-free and once under faults, and
asserts the reconciliation a user would check: no episode missing or stuck, the same
facts as the fault-free run (except tenants whose model calls failed for good, which
are listed), no duplicate live facts, no cross-tenant rows, and exactly the poison
records dead-lettered, each with its reason. `make chaos` runs the full drill.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from chaos.infra import given_infra
from chaos.profile import SHORT
from chaos.runner import drill, drop_databases, render

pytestmark = pytest.mark.timeout(300)


async def test_short_chaos_drill_reconciles(
    kafka_bootstrap: str, database_url: str, tmp_path: Path
) -> None:
    seed = int(time.time() * 1000) % 1_000_000
    lines: list[str] = []
    result = await drill(SHORT, given_infra(kafka_bootstrap, database_url), tmp_path, seed,
                         say=lines.append)  # fmt: skip
    out = io.StringIO()
    render(result.reconciliation, Console(file=out, width=160, color_system=None))
    report = out.getvalue() + "\n" + "\n".join(lines) + f"\n(logs in {tmp_path})"
    await drop_databases(database_url, result)
    assert result.base.finished and result.chaos.finished, report
    assert result.chaos.kills, report
    assert result.reconciliation.ok, report
