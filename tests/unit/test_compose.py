"""The deployment files say what DESIGN.md says: compose services, image, broker config."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from streams.dev.kafka_local import render_server_properties
from streams.pipeline import STAGES

ROOT = Path(__file__).resolve().parents[2]
DB_URL = "postgresql://postgres:postgres@postgres:5432/factstream"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_kafka_is_a_single_node_kraft_broker(compose: dict[str, Any]) -> None:
    kafka = compose["services"]["kafka"]
    assert kafka["image"] == "apache/kafka:4.1.1"
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
    assert pg["image"] == "pgvector/pgvector:pg17"
    volume = pg["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]
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


def test_sweep_and_setup_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["sweep"]["command"][0] == "sweep"
    assert services["sweep"]["build"]["dockerfile"] == "deploy/Dockerfile"
    assert services["migrate"]["command"] == ["migrate"]
    assert services["topics"]["command"] == ["topics", "create"]
    expected = {"kafka", "postgres", "migrate", "topics", "sweep", *STAGES}
    assert set(services) == expected


def test_dockerfile_installs_the_package_with_factstream_entrypoint() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert re.search(r"pip install \.", text)
    assert 'ENTRYPOINT ["factstream"]' in text


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
