"""A real Kafka broker without Docker: the official jars, resolved by Maven, run with java.

Layout under ``<dev_dir>/kafka``: ``server.properties`` (rendered from
``deploy/kafka/server.properties``), ``log4j2.properties``, ``data/`` (KRaft log dirs,
formatted once), ``kafka.log`` (the broker's console output) and ``kafka.pid``.
The jars live in ``settings.dev_kafka_libs`` and are fetched again when the pom changes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import string
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from streams.dev.proc import DevInfraError, pid_alive, port_open, remember_child, tail, terminate
from streams.kafka.client import cluster_answers

MAIN_CLASS = "kafka.Kafka"
STORAGE_TOOL = "kafka.tools.StorageTool"
HEAP: tuple[str, ...] = ("-Xms1g", "-Xmx1g")
# The client compiler only: a dev broker lives for a test run, a demo or a bench on a small
# machine, and the server compiler spent more CPU compiling over those minutes than its
# faster code saved (bench/README.md has the figures).
JIT: tuple[str, ...] = ("-XX:TieredStopAtLevel=1",)


def find_deploy_dir() -> Path:
    """``deploy/kafka`` of the checkout (the current directory first, then this package's)."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        candidate = base / "deploy" / "kafka"
        if (candidate / "pom.xml").is_file():
            return candidate
    raise DevInfraError(
        "deploy/kafka/pom.xml not found: the Docker-free broker runs from a factstream checkout"
        " (or set FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS to an existing broker)"
    )


def _need(tool: str, why: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise DevInfraError(f"`{tool}` not found on PATH: {why}")
    return path


def ensure_jars(libs: Path, deploy: Path) -> Path:
    """Resolve the broker jars into ``libs`` with Maven unless they match the pom already."""
    pom = deploy / "pom.xml"
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()
    stamp = libs / ".pom.sha256"

    def fresh() -> bool:
        return (
            stamp.is_file()
            and stamp.read_text().strip() == digest
            and any(libs.glob("kafka_2.13-*.jar"))
        )

    if fresh():
        return libs
    mvn = _need("mvn", "Maven fetches the Kafka jars (apt-get install maven)")
    libs.parent.mkdir(parents=True, exist_ok=True)
    with (libs.parent / ".libs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two `dev up`s at once resolve only once
        if fresh():
            return libs
        tmp = Path(tempfile.mkdtemp(prefix=".libs-", dir=libs.parent))
        try:
            cmd = [
                mvn,
                "-q",
                "-B",
                "-f",
                str(pom),
                "dependency:copy-dependencies",
                f"-DoutputDirectory={tmp}",
                "-DincludeScope=runtime",
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
            if done.returncode != 0:
                out = (done.stdout + done.stderr)[-4000:]
                raise DevInfraError(f"Maven could not fetch the Kafka jars:\n{out}")
            _sync_dir(tmp, libs)
            stamp.write_text(digest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return libs


def _sync_dir(src: Path, dst: Path) -> None:
    """Make ``dst`` hold exactly the jars of ``src`` (stale versions removed, e.g. slf4j 1.7)."""
    dst.mkdir(parents=True, exist_ok=True)
    wanted = {p.name for p in src.glob("*.jar")}
    for old in dst.glob("*.jar"):
        if old.name not in wanted:
            old.unlink()
    for jar in src.glob("*.jar"):
        target = dst / jar.name
        if not target.exists() or target.stat().st_size != jar.stat().st_size:
            os.replace(jar, target)


@dataclass(frozen=True)
class BrokerFiles:
    root: Path

    @property
    def config(self) -> Path:
        return self.root / "server.properties"

    @property
    def log4j(self) -> Path:
        return self.root / "log4j2.properties"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "kafka.log"

    @property
    def pid(self) -> Path:
        return self.root / "kafka.pid"

    def read_pid(self) -> int | None:
        try:
            return int(self.pid.read_text().strip())
        except (OSError, ValueError):
            return None


def render_server_properties(template: str, port: int, controller_port: int, data: Path) -> str:
    return string.Template(template).substitute(
        port=port, controller_port=controller_port, node_id=1, log_dirs=str(data)
    )


def _java(libs: Path, *args: str, heap: tuple[str, ...] = HEAP) -> list[str]:
    java = _need("java", "the local Kafka broker needs Java 17+ (or set up Docker)")
    return [
        java,
        *heap,
        "-XX:+UseG1GC",
        *JIT,
        "-Djava.awt.headless=true",
        "-cp",
        f"{libs}/*",
        *args,
    ]


def _format_storage(files: BrokerFiles, libs: Path) -> None:
    if (files.data / "meta.properties").is_file():
        return
    made = subprocess.run(
        _java(libs, STORAGE_TOOL, "random-uuid"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    cluster_id = made.stdout.strip().splitlines()[-1] if made.stdout.strip() else ""
    if made.returncode != 0 or not cluster_id:
        raise DevInfraError(f"StorageTool random-uuid failed:\n{made.stdout}{made.stderr}")
    fmt = subprocess.run(
        _java(
            libs,
            f"-Dlog4j2.configurationFile={files.log4j}",
            STORAGE_TOOL,
            "format",
            "--standalone",
            "-t",
            cluster_id,
            "-c",
            str(files.config),
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if fmt.returncode != 0:
        raise DevInfraError(f"StorageTool format failed:\n{fmt.stdout}{fmt.stderr}")


def broker_running(files: BrokerFiles) -> int | None:
    """The pid of this dev dir's broker when it is alive, else None."""
    pid = files.read_pid()
    if pid is not None and pid_alive(pid, cmdline_contains=str(files.config)):
        return pid
    return None


def check_ports_free(*ports: int) -> None:
    for p in ports:
        if port_open("127.0.0.1", p):
            raise DevInfraError(
                f"port {p} on 127.0.0.1 is taken by another process: choose free ports with"
                " FACTSTREAM_DEV_KAFKA_PORT / FACTSTREAM_DEV_CONTROLLER_PORT, or use that broker"
                " with FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS"
            )


def start_broker(
    files: BrokerFiles, libs: Path, deploy: Path, port: int, controller_port: int
) -> int:
    """Start a detached broker (formatting its storage on first start); return its pid."""
    check_ports_free(port, controller_port)
    files.data.mkdir(parents=True, exist_ok=True)
    template = (deploy / "server.properties").read_text()
    files.config.write_text(render_server_properties(template, port, controller_port, files.data))
    shutil.copyfile(deploy / "log4j2.properties", files.log4j)
    _format_storage(files, libs)
    heap = tuple(os.environ.get("KAFKA_HEAP_OPTS", "").split()) or HEAP
    cmd = _java(
        libs, f"-Dlog4j2.configurationFile={files.log4j}", MAIN_CLASS, str(files.config), heap=heap
    )
    with files.log.open("ab") as log:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=files.root,
            start_new_session=True,
        )
    remember_child(proc)
    files.pid.write_text(f"{proc.pid}\n")
    return proc.pid


def wait_ready(bootstrap: str, pid: int | None, log: Path | None, timeout_s: float = 60.0) -> None:
    """Wait until AdminClient.list_topics answers; raise with the log tail otherwise."""
    host, _, port = bootstrap.split(",")[0].rpartition(":")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pid is not None and not pid_alive(pid):
            where = f"\n--- {log} ---\n{tail(log)}" if log else ""
            raise DevInfraError(f"the Kafka broker (pid {pid}) exited during startup{where}")
        if port_open(host, int(port)) and cluster_answers(bootstrap):
            return
        time.sleep(0.5)
    where = f"\n--- {log} ---\n{tail(log)}" if log else ""
    raise DevInfraError(f"Kafka at {bootstrap} did not answer within {timeout_s:.0f} s{where}")


def stop_broker(files: BrokerFiles, pid: int, timeout_s: float = 30.0) -> bool:
    """SIGTERM (controlled shutdown), SIGKILL after ``timeout_s``. True when it had to kill."""
    killed = terminate(pid, timeout_s) if pid_alive(pid) else False
    files.pid.unlink(missing_ok=True)
    return killed
