"""The HTTP side of a process's metrics: ``/metrics``, ``/livez`` (also ``/healthz``), ``/readyz``.

``/metrics`` is prometheus_client's own WSGI app, so scrapers get what they ask for: the
Prometheus text format or OpenMetrics (``Accept``), gzip (``Accept-Encoding``), one
family (``?name[]=``). HEAD answers every path with the headers of a GET and no body
(the library's app answers HEAD with 405). Health follows the Kubernetes convention:

* ``/livez`` — the process works: for a worker, its loop is alive and polling. A failure
  means "restart me". ``/healthz`` is the same, for older probes.
* ``/readyz`` — it can do its job now: for a worker, the broker answers and, when the
  stage has a database, Postgres does. A failure means "do not count on me yet" (a
  rollout waits), never a restart.

Both answer 200 ``ok`` or 503 with the reason, in plain text. The server is
prometheus_client's threading WSGI server (one thread per request, daemon threads) bound
to ``host`` (``metrics_bind_address``; IPv6 addresses work).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

Check = Callable[[], tuple[bool, str]]
StartResponse = Callable[..., Any]
Environ = dict[str, Any]
LIVE_PATHS = ("/livez", "/healthz")


class Registries(Collector):
    """Several registries served as one (a worker's own plus the process default), with
    the ``restricted_registry`` the WSGI app uses for ``?name[]=``."""

    def __init__(self, registries: Sequence[CollectorRegistry | Collector]) -> None:
        self._registries = tuple(registries)

    def collect(self) -> Iterable[Metric]:
        for registry in self._registries:
            yield from registry.collect()

    def restricted_registry(self, names: Iterable[str]) -> Registries:
        wanted = list(names)
        return Registries(
            [
                r.restricted_registry(wanted)
                for r in self._registries
                if isinstance(r, CollectorRegistry)
            ]
        )


def make_app(
    registry: Collector, live: Check, ready: Check
) -> Callable[[Environ, StartResponse], Iterable[bytes]]:
    """The WSGI app: metrics from ``registry``, health from ``live`` and ``ready``."""
    metrics = make_wsgi_app(registry)

    def app(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if method not in ("GET", "HEAD"):
            return _text(start_response, "405 Method Not Allowed", "use GET or HEAD", method)
        if path == "/metrics":
            if method == "GET":
                body: Iterable[bytes] = metrics(environ, start_response)
                return body
            return _head(metrics, environ, start_response)
        if path in LIVE_PATHS or path == "/readyz":
            ok, why = (live if path in LIVE_PATHS else ready)()
            status = "200 OK" if ok else "503 Service Unavailable"
            return _text(start_response, status, why, method)
        return _text(start_response, "404 Not Found", "not found", method)

    return app


def _text(start_response: StartResponse, status: str, text: str, method: str) -> list[bytes]:
    body = text.encode("utf-8", "replace")
    headers = [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Length", str(len(body))),
        ("Cache-Control", "no-store"),
    ]
    if status.startswith("405"):
        headers.append(("Allow", "GET, HEAD"))
    start_response(status, headers)
    return [] if method == "HEAD" else [body]


def _head(
    app: Callable[[Environ, StartResponse], Iterable[bytes]],
    environ: Environ,
    start_response: StartResponse,
) -> list[bytes]:
    """Run ``app`` as a GET and send its status and headers only."""
    got: list[tuple[str, list[tuple[str, str]]]] = []

    def capture(status: str, headers: list[tuple[str, str]], *_exc: Any) -> None:
        got.append((status, headers))

    body = b"".join(app({**environ, "REQUEST_METHOD": "GET"}, capture))
    status, headers = got[0]
    headers = [h for h in headers if h[0].lower() != "content-length"]
    start_response(status, [*headers, ("Content-Length", str(len(body)))])
    return []


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


class MetricsServer:
    """Serves ``make_app`` in daemon threads until ``stop()``.

    ``registry`` is served together with prometheus_client's default registry (where stage
    modules and the process and platform collectors register; names must not collide)
    unless ``include_default`` is off. ``ready`` defaults to ``live``.
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        live: Check,
        port: int,
        host: str = "0.0.0.0",
        *,
        ready: Check | None = None,
        include_default: bool = True,
    ) -> None:
        registries = [registry, *([REGISTRY] if include_default else [])]
        app = make_app(Registries(registries), live, ready or live)

        class Server(ThreadingWSGIServer):
            pass

        # The address family of ``host`` (an IPv6 address needs AF_INET6), as the library does.
        family, *_, sockaddr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        Server.address_family, addr = family, str(sockaddr[0])
        self._server = make_server(addr, port, app, Server, handler_class=_Quiet)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics-http", daemon=True
        )

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
