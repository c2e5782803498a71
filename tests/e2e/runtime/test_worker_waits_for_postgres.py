"""A worker started while Postgres is down waits for it, saying so in one line per try,
instead of exiting with a traceback; SIGTERM ends the wait cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)


def test_a_worker_waits_for_postgres_and_stops_on_sigterm(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-postgres-here"  # a socket directory nothing listens in
    nowhere.mkdir()
    env = {
        **os.environ,
        "FACTSTREAM_DATABASE_URL": f"postgresql://postgres:secret@/postgres?host={nowhere}",
        "FACTSTREAM_TOPIC_PREFIX": "t-wait.",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "streams.cli.worker", "summarize"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        time.sleep(4.0)
        assert proc.poll() is None, proc.communicate()[0]  # still waiting, not exited
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output
    waits = [line for line in output.splitlines() if "waiting" in line and "Postgres at" in line]
    assert len(waits) >= 2, output  # backing off, trying again
    assert "secret" not in output and "***" in waits[0]  # the password is not shown
    assert "Traceback" not in output
