"""jsonlog, metrics server, config."""

import io
import json
import logging
import urllib.error
import urllib.request

import pytest

from streams.pipeline import EPISODES
from streams.runtime import jsonlog
from streams.runtime.config import GATHER_BYTES, WorkerConfig, consumer_conf
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.metrics_http import MetricsServer
from streams.settings import Settings


def test_json_log_lines_carry_record_coordinates() -> None:
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(jsonlog.JsonFormatter())
    logger = logging.getLogger("test.jsonlog")
    logger.addHandler(handler)
    logger.propagate = False
    fields = {
        "stage": "s", "tenant": "ds:p", "episode_id": "e1", "topic": "t", "partition": 2,
        "offset": 9,
    }  # fmt: skip
    try:
        logger.warning("hello %s", "x", extra=fields)
    finally:
        logger.removeHandler(handler)
    line = json.loads(buf.getvalue())
    assert line["msg"] == "hello x" and line["level"] == "warning"
    assert {k: line[k] for k in fields} == fields


def test_metrics_server_serves_metrics_and_health() -> None:
    metrics = WorkerMetrics("s")
    metrics.record("ok")
    metrics.lag("t", 3, 42)
    healthy = [True]
    server = MetricsServer(
        metrics.registry, lambda: (healthy[0], "ok" if healthy[0] else "bad"), 0, host="127.0.0.1"
    ).start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        text = urllib.request.urlopen(f"{base}/metrics", timeout=5).read().decode()
        assert 'factstream_records_total{outcome="ok",stage="s"} 1.0' in text
        assert 'factstream_consumer_lag{partition="3",stage="s",topic="t"} 42.0' in text
        assert "python_info" in text  # the default registry (stage modules, process) too
        assert urllib.request.urlopen(f"{base}/healthz", timeout=5).read() == b"ok"
        healthy[0] = False
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{base}/healthz", timeout=5)
        assert err.value.code == 503
    finally:
        server.stop()


def test_two_workers_in_one_process_have_separate_registries() -> None:
    a, b = WorkerMetrics("a"), WorkerMetrics("a")
    a.record("ok")
    assert a.value("factstream_records_total", outcome="ok") == 1
    assert b.value("factstream_records_total", outcome="ok") == 0


def test_config_from_settings() -> None:
    s = Settings(
        topic_prefix="x.", worker_concurrency=7, commit_interval_ms=250, max_record_bytes=123
    )
    cfg = WorkerConfig.from_settings(s, "extract", instance_id="pod-0")
    assert cfg.group == "factstream-extract" and cfg.dlq_topic == "x.dlq.extract"
    assert cfg.concurrency == 7 and cfg.commit_interval_s == 0.25 and cfg.max_record_bytes == 123
    assert cfg.transactional_id == "factstream-extract-pod-0"
    assert WorkerConfig.from_settings(s, "extract").transactional_id.startswith(
        "factstream-extract-"
    )


def test_consumers_of_the_episodes_topic_let_records_gather_for_the_source_fetch_wait() -> None:
    s = Settings(topic_prefix="x.", source_fetch_wait_ms=120)
    source = consumer_conf(WorkerConfig.from_settings(s, "extract", input_topic=s.topic(EPISODES)))
    # A fetch returns after the wait (a lone record included), or at once on a backlog.
    assert source["fetch.wait.max.ms"] == 120
    assert source["fetch.min.bytes"] == GATHER_BYTES
    # A stage topic's records land at once, at each upstream commit: taken as they come.
    stage = consumer_conf(
        WorkerConfig.from_settings(s, "resolve", input_topic=s.topic("facts.extracted"))
    )
    assert (stage["fetch.wait.max.ms"], stage["fetch.min.bytes"]) == (500, 1)
    off = Settings(topic_prefix="x.", source_fetch_wait_ms=0)
    conf = consumer_conf(
        WorkerConfig.from_settings(off, "extract", input_topic=off.topic(EPISODES))
    )
    assert (conf["fetch.wait.max.ms"], conf["fetch.min.bytes"]) == (500, 1)
