"""`dev up` after an unclean stop: a postmaster still recovering past pgserver's 10 s start
timeout is waited for (its postmaster.pid says when it is ready), not reported dead."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.dev.pg_local import wait_until_ready


def _pid_file(pgdata: Path, pid: int, status: str) -> None:
    # postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem
    # key, status.
    lines = [str(pid), str(pgdata), "1", "5432", str(pgdata), "", "0 0", status]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")


@pytest.fixture
def postmaster(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """A stand-in process whose command line names the data directory, as a postmaster's
    does (``postgres -D <pgdata>``)."""
    pgdata = tmp_path / "pg"
    pgdata.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(pgdata)])
    try:
        yield pgdata, proc
    finally:
        proc.kill()
        proc.wait()


def test_a_recovering_postmaster_is_waited_for_until_ready(
    postmaster: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    pgdata, proc = postmaster
    _pid_file(pgdata, proc.pid, "starting")
    later = threading.Timer(1.0, _pid_file, (pgdata, proc.pid, "ready"))
    later.start()
    started = time.monotonic()
    assert wait_until_ready(pgdata, timeout_s=20, poll_s=0.1)
    assert time.monotonic() - started >= 0.9
    later.join()


def test_a_postmaster_that_stops_while_starting_is_not_waited_for(
    postmaster: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    pgdata, proc = postmaster
    _pid_file(pgdata, proc.pid, "starting")
    threading.Timer(0.5, proc.kill).start()
    assert not wait_until_ready(pgdata, timeout_s=20, poll_s=0.1)


def test_waiting_gives_up_at_the_timeout(
    postmaster: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    pgdata, proc = postmaster
    _pid_file(pgdata, proc.pid, "starting")
    started = time.monotonic()
    assert not wait_until_ready(pgdata, timeout_s=1, poll_s=0.1)
    assert time.monotonic() - started < 5


def test_no_postmaster_means_nothing_to_wait_for(tmp_path: Path) -> None:
    assert not wait_until_ready(tmp_path, timeout_s=20)
