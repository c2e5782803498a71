"""Small process and socket helpers for the local dev infrastructure (no psutil needed)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from streams.errors import InfraError


class DevInfraError(InfraError):
    """Local infrastructure could not be started, found or stopped; the message says why."""


# Children this process spawned; kept referenced so they can be reaped (no zombies, no
# "subprocess still running" warnings) when this same process stops them.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def remember_child(proc: subprocess.Popen[bytes]) -> None:
    _CHILDREN[proc.pid] = proc


def pid_alive(pid: int, cmdline_contains: str | None = None) -> bool:
    """True when ``pid`` runs (and, if given, its command line contains the marker)."""
    child = _CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    proc_dir = Path(f"/proc/{pid}")
    if proc_dir.is_dir():
        try:
            stat = (proc_dir / "stat").read_text()
            if stat.rsplit(")", 1)[-1].split()[0] == "Z":
                return False
            if cmdline_contains is not None:
                cmdline = (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                return cmdline_contains in cmdline
        except OSError:
            return False
    return True


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def terminate(pid: int, timeout_s: float = 30.0) -> bool:
    """SIGTERM, wait up to ``timeout_s``, then SIGKILL. True when it had to kill."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            _reap(pid)
            return False
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    for _ in range(50):
        if not pid_alive(pid):
            break
        time.sleep(0.1)
    _reap(pid)
    return True


def _reap(pid: int) -> None:
    child = _CHILDREN.pop(pid, None)
    if child is not None:
        child.wait(timeout=5)


def tail(path: Path, lines: int = 40) -> str:
    if not path.is_file():
        return f"(no log at {path})"
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 64_000))
        text = f.read().decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


def docker_answers(timeout_s: float = 5.0) -> bool:
    """True when a Docker engine answers ``docker info`` quickly."""
    if shutil.which("docker") is None:
        return False
    try:
        done = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
