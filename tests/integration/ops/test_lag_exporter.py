"""`factstream lag --serve`: kafka_exporter's metric names and labels, from the real broker."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from streams.kafka.admin import admin_client
from streams.ops.lag_exporter import lag_server
from streams.settings import Settings
from tests.support.fixtures import Tenant
from tests.support.kafka import cli_env, commit, fill_partitions
from tests.support.promtool import findings

PARTITIONS = 3


def scrape(port: int) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """family name -> {sorted labels: value} of one /metrics scrape."""
    raw = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=20).read()
    if shutil.which("promtool"):
        assert findings(raw) == []
    text = raw.decode()
    found: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def test_exported_lag_matches_the_hand_count(
    tenant_settings: Settings, tenant: Tenant, create_topics: Callable[..., object]
) -> None:
    create_topics(tenant_settings, partitions=PARTITIONS)
    topic = tenant_settings.topic("facts.extracted")  # what resolve reads
    fill_partitions(tenant_settings, tenant.key, topic, {0: 7, 1: 4, 2: 2})
    group = f"test-resolve-{uuid.uuid4().hex[:8]}"
    commit(tenant_settings, group, topic, {0: 5, 1: 4})  # partition 2: never committed
    settings = tenant_settings.model_copy(update={"metrics_bind_address": "127.0.0.1"})
    server = lag_server(settings, admin_client(settings), ["resolve"], lambda _s: group, 0)
    with server:
        metrics = scrape(server.port)
        ready = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/readyz", timeout=10)
        assert (ready.status, ready.read()) == (200, b"ok")

    def by_partition(name: str) -> dict[str, float]:
        return {dict(k)["partition"]: v for k, v in metrics[name].items()}

    labels = {dict(k)["consumergroup"] for k in metrics["kafka_consumergroup_lag"]}
    assert labels == {group}
    assert {tuple(sorted(dict(k))) for k in metrics["kafka_consumergroup_lag"]} == {
        ("consumergroup", "partition", "topic")
    }
    assert by_partition("kafka_consumergroup_lag") == {"0": 2, "1": 0, "2": 2}
    assert metrics["kafka_consumergroup_lag_sum"] == {
        (("consumergroup", group), ("topic", topic)): 4
    }
    assert by_partition("kafka_consumergroup_current_offset") == {"0": 5, "1": 4}
    assert by_partition("kafka_topic_partition_current_offset") == {"0": 7, "1": 4, "2": 2}
    assert metrics["factstream_lag_exporter_up"] == {(): 1.0}


def test_readiness_fails_without_a_broker() -> None:
    settings = Settings(kafka_bootstrap_servers="127.0.0.1:1", metrics_bind_address="127.0.0.1")
    server = lag_server(settings, admin_client(settings), ["write"], lambda s: s, 0)
    with server:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/readyz", timeout=10)
        except urllib.error.HTTPError as exc:
            assert exc.code == 503
            assert exc.read().startswith(b"kafka: broker unreachable")
        else:
            raise AssertionError("/readyz answered 200 without a broker")
        live = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/livez", timeout=5)
        assert live.status == 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_command_serves_until_sigterm(
    tenant_settings: Settings, create_topics: Callable[..., object]
) -> None:
    create_topics(tenant_settings, partitions=PARTITIONS)
    port = free_port()
    env = {**os.environ, **cli_env(tenant_settings), "FACTSTREAM_METRICS_BIND_ADDRESS": "127.0.0.1"}
    factstream = str(Path(sys.executable).with_name("factstream"))  # the installed command
    cmd = [factstream, "lag", "--serve", str(port)]
    cmd += ["--group-prefix", "exporter-test-"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                metrics = scrape(port)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "exporter not up"
                time.sleep(0.2)
        groups = {dict(k)["consumergroup"] for k in metrics["kafka_consumergroup_lag_sum"]}
        assert groups == {f"exporter-test-{s}" for s in ("summarize", "extract", "resolve",
                                                         "dedup", "judge", "write")}  # fmt: skip
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    output = proc.stdout.read().decode() if proc.stdout else ""
    assert f"on http://127.0.0.1:{port}/metrics" in output
