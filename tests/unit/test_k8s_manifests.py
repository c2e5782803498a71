"""deploy/k8s: every stage has a Deployment running its worker and a KEDA ScaledObject on
its own consumer group and input topic, matching streams/pipeline.py and the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from streams import pipeline
from streams.pipeline import STAGES
from streams.settings import Settings

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"


def load_all() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


DOCS = load_all()


def one(kind: str, name: str) -> dict[str, Any]:
    found = [d for d in DOCS if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def config_settings() -> Settings:
    """Settings as the pods would read them from the ConfigMap."""
    data = one("ConfigMap", "factstream-config")["data"]
    return Settings(
        kafka_bootstrap_servers=data["FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS"],
        topic_prefix=data["FACTSTREAM_TOPIC_PREFIX"],
    )


@pytest.mark.parametrize("stage", STAGES)
def test_stage_deployment_runs_its_worker_with_probes_and_metrics(stage: str) -> None:
    deployment = one("Deployment", f"factstream-{stage}")
    pod = deployment["spec"]["template"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    assert container["args"] == ["worker", stage, "--metrics-port", "9100"]
    port = {p["name"]: p["containerPort"] for p in container["ports"]}["metrics"]
    assert port == 9100
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(port)
    refs = [next(iter(e.values()))["name"] for e in container["envFrom"]]
    assert refs == ["factstream-config", "factstream-secrets"]
    grace = pod["spec"]["terminationGracePeriodSeconds"]
    assert grace > Settings().shutdown_deadline_s  # the drain must finish before SIGKILL


@pytest.mark.parametrize("stage", STAGES)
def test_stage_scaled_object_watches_its_group_lag(stage: str) -> None:
    scaled = one("ScaledObject", f"factstream-{stage}")
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["spec"]["scaleTargetRef"]["name"] == f"factstream-{stage}"
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "kafka"
    meta = trigger["metadata"]
    settings = config_settings()
    assert meta["consumerGroup"] == pipeline.stage(stage).group
    assert meta["topic"] == pipeline.stage(stage).input_topic(settings)
    assert meta["bootstrapServers"] == settings.kafka_bootstrap_servers
    assert int(meta["lagThreshold"]) > 0
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]


def test_sweeper_and_config_exist_and_kustomization_lists_every_file() -> None:
    sweeper = one("Deployment", "factstream-sweeper")
    (container,) = sweeper["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["sweep"]
    assert not [
        d
        for d in DOCS
        if d["kind"] == "ScaledObject"
        and d["spec"]["scaleTargetRef"]["name"] == "factstream-sweeper"
    ]
    secret = one("Secret", "factstream-secrets")
    assert "FACTSTREAM_DATABASE_URL" in secret["stringData"]
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk
    deployments = {d["metadata"]["name"] for d in DOCS if d["kind"] == "Deployment"}
    assert deployments == {f"factstream-{s}" for s in STAGES} | {"factstream-sweeper"}
