"""A liveness probe as Kubernetes runs it (deploy/k8s: /livez every 10 s, 6 failures):
a worker whose /livez fails for ``window_s`` is killed and restarted."""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def probe(port: int, timeout_s: float = 2.0) -> tuple[bool, str]:
    """(healthy, why) from the worker's /livez."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=timeout_s) as r:
            return r.status == 200, r.read().decode(errors="replace")[:200]
    except urllib.error.HTTPError as exc:
        return False, exc.read().decode(errors="replace")[:200]
    except OSError as exc:
        return False, f"no answer: {exc}"


@dataclass
class Liveness:
    window_s: float = 45.0  # a paused worker (16 s) must survive it
    initial_delay_s: float = 30.0
    failing_since: dict[str, float] = field(default_factory=dict)

    def verdict(self, name: str, started_at: float, healthy: bool) -> bool:
        """True when ``name`` has failed its probe for the whole window: restart it."""
        now = time.monotonic()
        if healthy or now - started_at < self.initial_delay_s:
            self.failing_since.pop(name, None)
            return False
        since = self.failing_since.setdefault(name, now)
        return now - since >= self.window_s

    def forget(self, name: str) -> None:
        self.failing_since.pop(name, None)
