"""The drill's process supervisor: `factstream worker STAGE` and `factstream sweep` as OS
processes, killed (-9), paused (SIGSTOP/SIGCONT) and restarted like a scheduler would.

Every worker slot has a stable instance id (``<stage>-<n>``), as a StatefulSet pod has:
a restarted worker rejoins with static membership and the same transactional.id, which
fences its predecessor at once. A process that exits on its own is restarted too, and
counted: that is a crash the drill found.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from chaos.liveness import free_port
from streams.dev.proc import pid_alive

REPO = Path(__file__).resolve().parents[1]


def factstream_cmd() -> list[str]:
    script = Path(sys.executable).with_name("factstream")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from streams.cli.main import app; app()"]


@dataclass
class Slot:
    name: str  # "extract-0", "sweep"
    args: list[str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    kills: int = 0
    pauses: int = 0
    crashes: list[int] = field(default_factory=list)  # exit codes of exits we did not cause
    expect_exit: bool = False
    metrics_port: int | None = None  # /livez for the liveness probe (workers only)
    started_at: float = 0.0
    paused: bool = False

    @property
    def stage(self) -> str:
        return self.name.rsplit("-", 1)[0] if self.name != "sweep" else "sweep"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class Supervisor:
    def __init__(self, env: dict[str, str], run_dir: Path, group_prefix: str) -> None:
        self.env, self.run_dir, self.group_prefix = env, run_dir, group_prefix
        self.slots: dict[str, Slot] = {}

    def add_workers(self, stage: str, count: int, concurrency: int) -> None:
        for n in range(count):
            name = f"{stage}-{n}"
            port = free_port()
            args = [
                "worker",
                stage,
                "--group",
                f"{self.group_prefix}factstream-{stage}",
                "--instance-id",
                name,
                "--concurrency",
                str(concurrency),
                "--metrics-port",
                str(port),
            ]
            self.slots[name] = Slot(name, args, self.run_dir / f"{name}.log", metrics_port=port)

    def add_sweeper(self) -> None:
        self.slots["sweep"] = Slot("sweep", ["sweep"], self.run_dir / "sweep.log")

    def start(self, name: str) -> None:
        slot = self.slots[name]
        with slot.log_path.open("ab") as log:
            slot.proc = subprocess.Popen(
                factstream_cmd() + slot.args, env=self.env, cwd=REPO, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        slot.expect_exit = False
        slot.started_at = time.monotonic()

    def start_all(self) -> None:
        for name in self.slots:
            self.start(name)

    def kill(self, name: str) -> bool:
        """SIGKILL (a paused process is killed too); False when it was not running."""
        slot = self.slots[name]
        if not slot.alive or slot.proc is None:
            return False
        slot.expect_exit = True
        slot.proc.send_signal(signal.SIGKILL)
        slot.proc.wait(timeout=30)
        slot.kills += 1
        return True

    def pause(self, name: str) -> bool:
        slot = self.slots[name]
        if not slot.alive or slot.proc is None:
            return False
        slot.proc.send_signal(signal.SIGSTOP)
        slot.pauses += 1
        slot.paused = True
        return True

    def resume(self, name: str) -> None:
        slot = self.slots[name]
        if slot.alive and slot.proc is not None:
            slot.proc.send_signal(signal.SIGCONT)
        slot.paused = False

    def alive(self, stage: str) -> list[str]:
        return [n for n, s in self.slots.items() if s.stage == stage and s.alive]

    def stop_all(self, timeout_s: float = 40.0) -> dict[str, int | None]:
        """SIGTERM everyone (drain), SIGKILL what is left after ``timeout_s``."""
        for slot in self.slots.values():
            if slot.alive and slot.proc is not None:
                slot.expect_exit = True
                slot.proc.send_signal(signal.SIGCONT)
                slot.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        codes: dict[str, int | None] = {}
        for name, slot in self.slots.items():
            if slot.proc is None:
                continue
            try:
                codes[name] = slot.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                slot.proc.kill()
                codes[name] = slot.proc.wait(timeout=10)
        return codes

    def pids(self) -> dict[str, int]:
        return {n: s.proc.pid for n, s in self.slots.items() if s.proc is not None and s.alive}


def worker_env(base: dict[str, str], **values: object) -> dict[str, str]:
    """The environment of the drill's processes: ours, never the caller's FACTSTREAM_*."""
    env = {k: v for k, v in base.items() if not k.startswith("FACTSTREAM_") and k != "DATABASE_URL"}
    env.update({k: str(v) for k, v in values.items()})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def any_alive(pids: dict[str, int]) -> bool:
    return any(pid_alive(pid) for pid in pids.values())
