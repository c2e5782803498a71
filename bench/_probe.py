"""CPU of the servers the bench shares: the Postgres backends of its database, the broker.

The worker processes' own CPU and RSS are sampled by bench/_harness.py's Fleet; the
servers serve whatever else runs on the machine too, so :class:`Probe` counts only the
backends of the bench's database (split by the stage each serves) and the broker's process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

import asyncpg
import psutil


class Probe:
    """CPU seconds of the Postgres backends of one database (matched by their process
    title) and of the Kafka broker. Both servers are shared with whatever else runs on
    the machine; the backends are ours alone, the broker is not."""

    def __init__(self, db_name: str, bootstrap: str, db_url: str | None = None) -> None:
        self.db_name, self.db_url = db_name, db_url
        self.owner: dict[int, str] = {}  # backend pid -> application_name (worker: its stage)
        port = int(bootstrap.split(",")[0].rpartition(":")[2])
        # The broker is the process listening on the bootstrap port (other brokers may run).
        self.broker = [psutil.Process(c.pid) for c in psutil.net_connections("tcp")
                       if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
                       and c.pid is not None][:1]  # fmt: skip

    def _procs(self) -> tuple[list[psutil.Process], list[psutil.Process]]:
        pg = []
        for p in psutil.process_iter(["cmdline"]):
            cmd = " ".join(p.info.get("cmdline") or [])
            if cmd.startswith("postgres: ") and f" {self.db_name} " in f"{cmd} ":
                pg.append(p)
        return pg, self.broker

    def _learn_owners(self) -> None:
        """Which stage each backend serves: workers name their pool sessions
        ``factstream-<stage>`` (application_name), so Postgres CPU splits by stage."""
        if self.db_url is None:
            return

        async def read() -> list[Any]:
            conn = await asyncpg.connect(self.db_url)
            try:
                return list(await conn.fetch(
                    "SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1",
                    self.db_name,
                ))  # fmt: skip
            finally:
                await conn.close()

        box: list[list[Any]] = []
        thread = threading.Thread(target=lambda: box.append(asyncio.run(read())))
        thread.start()  # its own event loop: callers may be inside one
        thread.join()
        for r in box[0] if box else []:
            self.owner[int(r["pid"])] = str(r["application_name"] or "other")

    def snapshot(self) -> dict[str, Any]:
        self._learn_owners()
        pg, kafka = self._procs()

        def cpu(ps: list[psutil.Process]) -> dict[int, float]:
            out = {}
            for p in ps:
                with contextlib.suppress(psutil.Error):
                    t = p.cpu_times()
                    out[p.pid] = float(t.user + t.system)
            return out

        return {"pg": cpu(pg), "kafka": cpu(kafka), "t": time.monotonic(),
                "load": os.getloadavg(), "owner": dict(self.owner)}  # fmt: skip

    @staticmethod
    def diff(after: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, float]:
        def used(a: Mapping[int, float], b: Mapping[int, float]) -> float:
            return sum(v - b.get(pid, 0.0) for pid, v in a.items())

        by_owner: dict[str, float] = {}
        for pid, v in after["pg"].items():
            name = after.get("owner", {}).get(pid, "other")
            by_owner[name] = by_owner.get(name, 0.0) + v - before["pg"].get(pid, 0.0)
        return {"pg_cpu_s": used(after["pg"], before["pg"]),
                "pg_cpu_s_by_app": by_owner,
                "kafka_cpu_s": used(after["kafka"], before["kafka"]),
                "wall_s": after["t"] - before["t"]}  # fmt: skip
