"""deploy/k8s: every stage has a Deployment running its worker (probing /livez and /readyz),
a metrics Service with a ServiceMonitor, a PodDisruptionBudget and a KEDA ScaledObject on
its own consumer group and input topic, matching streams/pipeline.py and the settings.
Every workload passes Pod Security "restricted", every built-in kind validates against the
Kubernetes schemas (kubernetes-validate), and the image is pinned by the kustomization."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from streams import pipeline
from streams.pipeline import STAGES
from streams.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
CRDS = {"keda.sh/v1alpha1", "monitoring.coreos.com/v1"}
KUSTOMIZATION = yaml.safe_load((K8S / "kustomization.yaml").read_text())


def load_all() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


DOCS = load_all()
DEPLOYMENTS = [d for d in DOCS if d["kind"] == "Deployment"]


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


def pod_labels(deployment: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = deployment["spec"]["template"]["metadata"]["labels"]
    return labels


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
    assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "metrics"}
    assert container["startupProbe"]["httpGet"] == {"path": "/livez", "port": "metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    # /readyz answers within 5 s (its checks are bounded); the probe must wait that long.
    assert container["readinessProbe"]["timeoutSeconds"] > 5
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


def metrics_service_and_monitor(name: str, deployment: dict[str, Any]) -> None:
    """A Service on the pods' metrics port and a ServiceMonitor that selects it."""
    service = one("Service", f"{name}-metrics")
    labels = pod_labels(deployment)
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    (port,) = service["spec"]["ports"]
    assert (port["name"], port["port"], port["targetPort"]) == ("metrics", 9100, "metrics")
    assert service["spec"]["publishNotReadyAddresses"] is True  # scraped while not ready
    monitor = one("ServiceMonitor", name)
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    )
    (endpoint,) = monitor["spec"]["endpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("metrics", "/metrics")
    others = [
        s["metadata"]["name"]
        for s in DOCS
        if s["kind"] == "Service"
        and monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
    ]
    assert others == [f"{name}-metrics"]  # it selects that Service alone


@pytest.mark.parametrize("stage", STAGES)
def test_stage_has_a_metrics_service_a_service_monitor_and_a_disruption_budget(
    stage: str,
) -> None:
    name = f"factstream-{stage}"
    deployment = one("Deployment", name)
    metrics_service_and_monitor(name, deployment)
    budget = one("PodDisruptionBudget", name)
    assert budget["apiVersion"] == "policy/v1"
    assert (
        budget["spec"]["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    )
    # One pod at a time; a one-replica stage can still be drained off a node.
    assert budget["spec"]["maxUnavailable"] == 1 and "minAvailable" not in budget["spec"]


def test_lag_exporter_serves_every_stage_group() -> None:
    deployment = one("Deployment", "factstream-lag-exporter")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["lag", "--serve", "9100"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    metrics_service_and_monitor("factstream-lag-exporter", deployment)


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
    listed = set(KUSTOMIZATION["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk
    deployments = {d["metadata"]["name"] for d in DEPLOYMENTS}
    assert deployments == {f"factstream-{s}" for s in STAGES} | {
        "factstream-sweeper",
        "factstream-lag-exporter",
    }


# --- Pod Security "restricted" (kubernetes.io/docs/concepts/security/pod-security-standards)

ALLOWED_VOLUMES = {
    "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
    "projected", "secret",
}  # fmt: skip


def restricted_violations(pod: dict[str, Any]) -> list[str]:
    """What a pod spec does that the "restricted" profile (baseline included) forbids."""
    found = [key for key in ("hostNetwork", "hostPID", "hostIPC") if pod.get(key)]
    for volume in pod.get("volumes", []):
        kinds = set(volume) - {"name"}
        if not kinds <= ALLOWED_VOLUMES:
            found.append(f"volume {volume['name']}: {kinds}")
    for container in pod.get("initContainers", []) + pod["containers"]:
        found += container_violations(container, pod.get("securityContext", {}))
    return found


def container_violations(c: dict[str, Any], pod_ctx: dict[str, Any]) -> list[str]:
    ctx = c.get("securityContext", {})
    caps = ctx.get("capabilities", {})
    seccomp = ctx.get("seccompProfile", pod_ctx.get("seccompProfile", {}))
    rules = {
        "privileged": bool(ctx.get("privileged")),
        "allowPrivilegeEscalation must be false": ctx.get("allowPrivilegeEscalation") is not False,
        "capabilities must drop ALL": "ALL" not in caps.get("drop", []),
        "adds capabilities": bool(set(caps.get("add", [])) - {"NET_BIND_SERVICE"}),
        "runAsNonRoot must be true": ctx.get("runAsNonRoot", pod_ctx.get("runAsNonRoot"))
        is not True,
        "runs as uid 0": ctx.get("runAsUser", pod_ctx.get("runAsUser")) == 0,
        "seccompProfile must be RuntimeDefault or Localhost": (
            seccomp.get("type") not in ("RuntimeDefault", "Localhost")
        ),
        "hostPort": any(port.get("hostPort") for port in c.get("ports", [])),
        "procMount": ctx.get("procMount", "Default") != "Default",
    }
    return [f"{c['name']}: {rule}" for rule, broken in rules.items() if broken]


@pytest.mark.parametrize("name", [d["metadata"]["name"] for d in DEPLOYMENTS])
def test_every_workload_passes_pod_security_restricted(name: str) -> None:
    pod = one("Deployment", name)["spec"]["template"]["spec"]
    assert restricted_violations(pod) == []
    (container,) = pod["containers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["automountServiceAccountToken"] is False  # no Kubernetes API access needed


def test_the_restricted_check_catches_what_it_should() -> None:
    bare = {"containers": [{"name": "c", "image": "x"}], "volumes": [{"name": "h", "hostPath": {}}]}
    found = restricted_violations(bare)
    assert len(found) == 5, found  # hostPath, escalation, capabilities, non-root, seccomp


# --- schemas and images


@pytest.mark.parametrize(
    "doc",
    [d for d in DOCS if d["apiVersion"] not in CRDS],
    ids=lambda d: f"{d['kind']}-{d['metadata']['name']}",
)
def test_built_in_kinds_validate_against_the_kubernetes_schemas(doc: dict[str, Any]) -> None:
    # strict: an unknown or misspelt field is an error, not ignored.
    kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


def test_custom_resources_have_what_their_operators_need() -> None:
    for doc in DOCS:
        if doc["apiVersion"] in CRDS:
            assert doc["kind"] in {"ScaledObject", "ServiceMonitor"}, doc["kind"]
            assert doc["metadata"]["name"].startswith("factstream-")
            assert doc["spec"], doc["metadata"]["name"]


def test_the_image_is_pinned_by_the_kustomization() -> None:
    (image,) = KUSTOMIZATION["images"]
    assert image["name"] == "factstream"
    pin = image.get("digest") or image.get("newTag")
    assert pin and pin != "latest", image
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    if "digest" not in image:
        assert image["newTag"] == version  # the release this checkout builds
    for deployment in DEPLOYMENTS:
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            assert container["image"] == f"factstream:{image['newTag']}", container["image"]


def test_no_moving_image_tags_anywhere_in_deploy() -> None:
    for path in [*ROOT.joinpath("deploy").rglob("*"), ROOT / "docker-compose.yml"]:
        if path.is_file() and path.suffix in {"", ".yaml", ".yml", ".md", ".json"}:
            assert ":latest" not in path.read_text(), path
