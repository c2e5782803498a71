"""A drained pipeline shows lag 0 everywhere an operator looks (issue 18, item 1).

The six stages run on the real broker and Postgres (tests/support/pipeline.py) over
tenants that cover every partition; once every episode is done and the workers stopped,
each stage group is read by `factstream lag`, by its exporter (`lag --serve`), by Kafka's
own ConsumerGroupCommand (what `kafka-consumer-groups.sh --describe` runs) and through
the KEDA scaler's formula with each stage's `lagThreshold` from deploy/k8s. Stage topics
are written in Kafka transactions, so each of their partitions ends with a commit marker:
a group that committed last record + 1 would show lag 1 there in every one of those tools.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
import uuid
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from streams import pipeline as topology
from streams.cli.main import app
from streams.kafka.admin import admin_client
from streams.kafka.partitioning import partition_for
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph
from streams.ops.lag_exporter import lag_server
from streams.pipeline import STAGES
from streams.settings import Settings
from tests.support.events import episode
from tests.support.kafka_tools import describe_groups, kafka_libs, keda_replicas
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
PARTITIONS = 3
K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"


def tenants_on_every_partition(per_partition: int = 2) -> list[tuple[str, str]]:
    found: dict[int, list[tuple[str, str]]] = {p: [] for p in range(PARTITIONS)}
    while any(len(v) < per_partition for v in found.values()):
        tenant = (f"lag-{uuid.uuid4().hex[:8]}", "p1")
        bucket = found[partition_for(f"{tenant[0]}:{tenant[1]}", PARTITIONS)]
        if len(bucket) < per_partition:
            bucket.append(tenant)
    return [t for v in found.values() for t in v]


def exported_lag(settings: Settings, groups: dict[str, str]) -> dict[tuple[str, str], float]:
    """(consumergroup, partition) -> kafka_consumergroup_lag from `lag --serve`'s server."""
    local = settings.model_copy(update={"metrics_bind_address": "127.0.0.1"})
    server = lag_server(local, admin_client(local), list(groups), groups.__getitem__, 0)
    with server:
        url = f"http://127.0.0.1:{server.port}/metrics"
        text = urllib.request.urlopen(url, timeout=30).read().decode()
    return {
        (s.labels["consumergroup"], s.labels["partition"]): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "kafka_consumergroup_lag"
    }


def lag_threshold(stage: str) -> int:
    docs = yaml.safe_load_all((K8S / f"{stage}.yaml").read_text())
    (scaled,) = [d for d in docs if d and d["kind"] == "ScaledObject"]
    return int(scaled["spec"]["triggers"][0]["metadata"]["lagThreshold"])


async def test_drained_pipeline_has_lag_zero_in_every_tool(
    kafka_bootstrap: str, database_url: str
) -> None:
    kafka_libs()  # resolve Kafka's tools first (Maven, once), or skip without java
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    tenants = tenants_on_every_partition()
    for dataset, project in tenants:
        book.add(
            dataset, project,
            TenantScript(
                graphs={
                    "ep-1": graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo")),
                    "ep-2": graph({"rome": "PLACE"}, claim("user", "lives in", "rome")),
                },
                verdict=always("old"),
            ),
        )  # fmt: skip
    events = [
        episode(*t, ep, text)
        for t in tenants
        for ep, text in (("ep-1", "I live in Oslo."), ("ep-2", "I moved to Rome."))
    ]
    pipe = Pipeline(settings, book.models())
    groups = {stage: pipe.group(stage) for stage in STAGES}
    try:
        async with pipe:
            await pipe.publish(*events)
            await pipe.wait_done(events, timeout=120)
            # The last commits land within a few commit intervals of the last record.
            await asyncio.sleep(1.0)
        env = {
            "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "FACTSTREAM_TOPIC_PREFIX": settings.topic_prefix,
        }
        result = await asyncio.to_thread(
            CliRunner().invoke, app,
            ["lag", "--json", "--group-prefix", f"{settings.topic_prefix}factstream-"], env=env,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        rows = await asyncio.to_thread(describe_groups, kafka_bootstrap, list(groups.values()))
        exported = await asyncio.to_thread(exported_lag, settings, groups)
    finally:
        delete_pipeline_topics(settings)

    assert report["total_lag"] == 0, result.output
    for stage in report["stages"]:
        assert [p["lag"] for p in stage["partitions"]] == [0] * PARTITIONS, stage
    # Kafka's own tool: every partition of every stage group, each at LAG 0.
    for stage, group in groups.items():
        mine = [r for r in rows if r.group == group]
        topic = topology.stage(stage).input_topic(settings)
        assert {(r.topic, r.partition) for r in mine} == {(topic, p) for p in range(PARTITIONS)}
        assert all(r.log_end > 0 for r in mine), mine  # every partition carried records
        assert [r.lag for r in mine] == [0] * PARTITIONS, mine
        assert [r.current for r in mine] == [r.log_end for r in mine]
        assert keda_replicas(mine, lag_threshold(stage)) == 0, stage
    # The lag exporter (what dashboards and a KEDA prometheus trigger read): 0 everywhere.
    assert exported == {(g, str(p)): 0.0 for g in groups.values() for p in range(PARTITIONS)}
    # The stage topics really end with markers: past their last record, not at it.
    judged = [r for r in rows if r.group == groups["write"]]
    assert sum(r.log_end for r in judged) > len(events)
