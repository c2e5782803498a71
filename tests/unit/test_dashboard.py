"""deploy/grafana/factstream.json queries only metrics the code registers, in valid PromQL,
and the metrics themselves pass `promtool check metrics` (when promtool is installed; see
tests/support/promtool.py for the two kafka_exporter names it flags)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric

from streams.model.metered import ModelMetrics
from streams.ops.lag import PartitionLag, StageLag
from streams.ops.lag_exporter import LagCollector, lag_families
from streams.runtime.metrics import WorkerMetrics, _PoolCollector
from streams.settings import Settings
from tests.support.promtool import findings, needs_promtool

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "factstream.json"
METRIC = re.compile(r"\b(?:factstream|kafka)_[a-z0-9_]+")
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def exposed(families: Iterable[Metric]) -> set[str]:
    """The sample names a scrape shows for these families (counters get _total, ...)."""
    return {f.name + suffix for f in families for suffix in SUFFIXES.get(f.type, ("",))}


def registered_names() -> set[str]:
    registry = CollectorRegistry()
    WorkerMetrics("s", registry)
    ModelMetrics(registry, "s")
    lag = LagCollector(Settings(), None, [], lambda s: s)  # type: ignore[arg-type]
    return (
        exposed(registry.collect())
        | exposed(_PoolCollector("s", None, lambda: 0).describe())  # type: ignore[arg-type]
        | exposed(lag.describe())
        | exposed(REGISTRY.collect())
    )


def panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found += panel.get("panels", [])
    return found


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    data = json.loads(DASHBOARD.read_text())
    assert isinstance(data, dict)
    return data


def queries(dashboard: dict[str, Any]) -> list[str]:
    return [t["expr"] for p in panels(dashboard) for t in p.get("targets", [])]


def test_every_query_names_registered_metrics(dashboard: dict[str, Any]) -> None:
    names = registered_names()
    used = {m for q in queries(dashboard) for m in METRIC.findall(q)}
    assert used, "no queries found"
    assert sorted(used - names) == []
    # The lag panels read the exporter's kafka_exporter names, the rest the workers'.
    assert {"kafka_consumergroup_lag", "kafka_consumergroup_lag_sum"} <= used
    for family in ("model_call_seconds", "model_input_tokens", "model_errors", "db_pool"):
        assert any(f"factstream_{family}" in m for m in used), family


def test_panels_have_ids_and_use_the_datasource_variable(dashboard: dict[str, Any]) -> None:
    ids = [p["id"] for p in panels(dashboard)]
    assert len(ids) == len(set(ids))
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    assert {"datasource", "group", "stage"} <= variables
    for panel in panels(dashboard):
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
            assert panel["targets"], panel["title"]


def promql(expr: str) -> str:
    """A query as Prometheus sees it once Grafana filled in the variables."""
    return expr.replace("$__rate_interval", "5m").replace("$group", ".*").replace("$stage", ".*")


@needs_promtool
def test_queries_are_valid_promql(dashboard: dict[str, Any], tmp_path: Path) -> None:
    rules = [
        {"record": f"dashboard:query_{i}", "expr": promql(q)}
        for i, q in enumerate(queries(dashboard))
    ]
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    done = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_metrics_pass_promtool_check_metrics() -> None:
    registry = CollectorRegistry()
    worker = WorkerMetrics("extract", registry)
    worker.lag("t", 0, 3)
    worker.dead_letter("poison")
    worker.commit("ok")
    ModelMetrics(registry, "extract")
    report = [StageLag("write", "factstream-write", "t", [PartitionLag(0, 0, 5, 4)])]
    text = b"".join(generate_latest(r) for r in (registry, REGISTRY))
    families = CollectorRegistry()
    for family in lag_families(report):
        families.register(_Fixed(family))
    text += generate_latest(families)
    assert findings(text) == []


class _Fixed:
    def __init__(self, family: Metric) -> None:
        self._family = family

    def collect(self) -> list[Metric]:
        return [self._family]
