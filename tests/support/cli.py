"""`factstream` as an operator runs it: a real process, its own stdout and stderr (where
librdkafka would write lines of its own), its exit code and how long it took."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, "-c", "from streams.cli.main import app; app()"]


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def err_lines(self) -> list[str]:
        return self.stderr.splitlines()


def clean_env(**values: str) -> dict[str, str]:
    """The environment without any FACTSTREAM_ setting of the test run, plus ``values``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FACTSTREAM_")}
    env.pop("DATABASE_URL", None)
    return {**env, "COLUMNS": "200", **values}


def run(args: list[str], env: dict[str, str], *, stdin: str = "", timeout_s: float = 120.0) -> Ran:
    started = time.monotonic()
    done = subprocess.run(
        COMMAND + args, env=env, cwd=REPO, input=stdin.encode(), capture_output=True,
        timeout=timeout_s, check=False,
    )  # fmt: skip
    return Ran(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        time.monotonic() - started,
    )


def run_for(args: list[str], env: dict[str, str], seconds: float) -> Ran:
    """Start a long-running command, SIGTERM it after ``seconds``, collect what it said."""
    started = time.monotonic()
    proc = subprocess.Popen(
        COMMAND + args, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        time.sleep(seconds)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    return Ran(
        proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        time.monotonic() - started,
    )


def closed_port() -> int:
    """A local port nothing listens on (bound once, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
