"""The metrics and health server: prometheus_client's WSGI app behind /metrics (formats,
gzip, HEAD), liveness on /livez and /healthz, readiness on /readyz, the bind address."""

from __future__ import annotations

import gzip
import http.client
import socket
from collections.abc import Iterator

import pytest

from streams.runtime.metrics import WorkerMetrics
from streams.runtime.metrics_http import MetricsServer


class Flags:
    def __init__(self) -> None:
        self.live, self.ready = True, True

    def live_check(self) -> tuple[bool, str]:
        return self.live, "ok" if self.live else "no poll for 99s"

    def ready_check(self) -> tuple[bool, str]:
        return self.ready, "ok" if self.ready else "kafka: broker unreachable"


@pytest.fixture
def flags() -> Flags:
    return Flags()


@pytest.fixture
def server(flags: Flags) -> Iterator[MetricsServer]:
    metrics = WorkerMetrics("s")
    metrics.record("ok")
    with MetricsServer(
        metrics.registry, flags.live_check, 0, "127.0.0.1", ready=flags.ready_check
    ) as srv:
        yield srv


def request(
    port: int, path: str, method: str = "GET", host: str = "127.0.0.1", **headers: str
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(host, port, timeout=5)
    try:
        conn.request(method, path, headers={k.replace("_", "-"): v for k, v in headers.items()})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_metrics_in_the_prometheus_text_format_by_default(server: MetricsServer) -> None:
    status, headers, body = request(server.port, "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    text = body.decode()
    assert 'factstream_records_total{outcome="ok",stage="s"} 1.0' in text
    assert "python_info" in text  # the default registry (stage modules, process) too


def test_openmetrics_when_asked(server: MetricsServer) -> None:
    status, headers, body = request(
        server.port, "/metrics", Accept="application/openmetrics-text; version=1.0.0"
    )
    assert status == 200
    assert headers["content-type"].startswith("application/openmetrics-text")
    text = body.decode()
    assert text.rstrip().endswith("# EOF")
    assert 'factstream_records_total{outcome="ok",stage="s"} 1.0' in text


def test_gzip_when_accepted(server: MetricsServer) -> None:
    status, headers, body = request(server.port, "/metrics", Accept_Encoding="gzip")
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert b"factstream_records_total" in gzip.decompress(body)


def test_one_family_by_name(server: MetricsServer) -> None:
    _, _, body = request(server.port, "/metrics?name[]=factstream_records_total")
    names = {line.split("{")[0] for line in body.decode().splitlines() if line[:1] != "#"}
    assert names == {"factstream_records_total"}


def test_head_answers_headers_without_a_body(server: MetricsServer) -> None:
    _, get_headers, get_body = request(server.port, "/metrics")
    status, headers, body = request(server.port, "/metrics", "HEAD")
    assert status == 200 and body == b""
    assert headers["content-type"] == get_headers["content-type"]
    assert abs(int(headers["content-length"]) - len(get_body)) < 200  # samples move between
    for path in ("/livez", "/readyz", "/healthz"):
        status, headers, body = request(server.port, path, "HEAD")
        assert (status, body, headers["content-length"]) == (200, b"", "2")


def test_liveness_and_readiness_are_separate(server: MetricsServer, flags: Flags) -> None:
    for path in ("/livez", "/healthz", "/readyz"):
        assert request(server.port, path)[::2] == (200, b"ok")
    flags.ready = False
    assert request(server.port, "/readyz")[::2] == (503, b"kafka: broker unreachable")
    assert request(server.port, "/livez")[0] == 200  # not ready is not dead
    flags.live = False
    for path in ("/livez", "/healthz"):
        assert request(server.port, path)[::2] == (503, b"no poll for 99s")


def test_unknown_paths_and_methods(server: MetricsServer) -> None:
    assert request(server.port, "/nope")[0] == 404
    status, headers, _ = request(server.port, "/metrics", "POST")
    assert status == 405 and headers["allow"] == "GET, HEAD"


def test_binds_the_address_it_is_given() -> None:
    metrics = WorkerMetrics("b")
    with MetricsServer(metrics.registry, lambda: (True, "ok"), 0, "127.0.0.1") as srv:
        assert srv.port > 0
        assert request(srv.port, "/livez")[0] == 200
    if not socket.has_ipv6:
        return
    try:
        six = MetricsServer(metrics.registry, lambda: (True, "ok"), 0, "::1")
    except OSError:  # no IPv6 loopback in this sandbox
        return
    with six:
        assert request(six.port, "/livez", host="::1")[0] == 200
