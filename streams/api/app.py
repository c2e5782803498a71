"""The read API and the Playground: one Starlette app, served by uvicorn.

``create_app`` builds it on settings (and, for tests and the demo, an existing pool, the
consumer groups to watch and an embedder); ``serve`` runs it until SIGINT/SIGTERM. The
server binds ``api_bind_address`` (127.0.0.1) and refuses any other address without
``api_token`` (streams/api/auth.py). Errors are JSON ``{"error", "status"}`` under /api/
and a short page elsewhere; streams/api/guard.py refuses some requests before routing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from streams.api import pages, pages_pipeline, pages_trace, routes
from streams.api.auth import BearerToken, check_exposure
from streams.api.context import ApiContext
from streams.api.guard import RequestGuard, error_response
from streams.api.params import ApiError
from streams.api.pipeline_view import LagHistory
from streams.errors import InfraError
from streams.kafka.admin import TopicNotFoundError
from streams.kafka.client import KafkaFailure
from streams.model.ports import Embedder
from streams.pipeline import stage as stage_spec
from streams.settings import Settings
from streams.store.db import create_pool

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
_T = "/tenants/{dataset}/{project}"

PAGES = [
    Route("/", pages.episodes_page),
    Route("/tenants", pages.tenants_page),
    Route(_T, pages.memory_page),
    Route(_T + "/search", pages.search_page),
    Route(_T + "/facts/{fact_id}", pages.fact_page),
    Route(_T + "/entities", pages.entities_page),
    Route(_T + "/entities/{entity_id}", pages.entity_page),
    Route(_T + "/episodes/{episode_id:path}", pages_trace.episode_page),
    Route(_T + "/episode", pages_trace.episode_page),
    Route("/pipeline", pages_pipeline.pipeline_page),
    Route("/pipeline/dlq/{stage}", pages_pipeline.dlq_stage_page),
    Route("/pipeline/dlq/{stage}/{partition}/{offset}", pages_pipeline.dead_letter_page),
]


def _error(request: Request, status: int, message: str) -> Response:
    return error_response(request.url.path, status, message)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return _error(request, exc.status, exc.message)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = {404: "no such page or endpoint", 405: "method not allowed"}.get(
        exc.status_code, str(exc.detail)
    )
    return _error(request, exc.status_code, f"{message}: {request.method} {request.url.path}")


async def _unavailable(request: Request, exc: Exception) -> Response:
    log.warning("postgres unavailable for %s: %s", request.url.path, exc)
    return _error(request, 503, f"Postgres is unreachable or failed: {type(exc).__name__}: {exc}")


async def _no_topic(request: Request, exc: Exception) -> Response:
    return _error(request, 404, str(exc))


async def _kafka_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("kafka unavailable for %s: %s", request.url.path, exc)
    return _error(request, 503, f"Kafka is unreachable or failed: {type(exc).__name__}: {exc}")


async def _internal(request: Request, exc: Exception) -> Response:
    log.exception("internal error on %s", request.url.path)
    return _error(request, 500, f"internal error: {type(exc).__name__}")


def default_group(stage: str) -> str:
    return stage_spec(stage).group


def create_app(
    settings: Settings,
    *,
    pool: Any = None,
    group_of: Callable[[str], str] = default_group,
    embedder: Embedder | None = None,
    lag_interval_s: float = 5.0,
) -> Starlette:
    """The app on ``settings``; with ``pool`` it uses that pool (and does not close it)."""
    token = settings.api_token.get_secret_value() if settings.api_token else None
    check_exposure(settings.api_bind_address, token)
    lag = LagHistory(settings, group_of, interval_s=lag_interval_s)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = pool is None
        used = await create_pool(settings.require_database_url(), application_name=
                                 "factstream-console") if own else pool  # fmt: skip
        ctx = ApiContext(settings, used, group_of, lag)
        if embedder is not None:
            ctx._embedder = embedder
        app.state.ctx = ctx
        sampler = asyncio.create_task(lag.run())
        try:
            yield
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
            if own:
                await used.close()

    app = Starlette(
        routes=[*routes.ROUTES, *PAGES, Mount("/static", StaticFiles(directory=STATIC))],
        middleware=[Middleware(RequestGuard, token=token), Middleware(BearerToken, token=token)],
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            asyncpg.PostgresError: _unavailable,
            OSError: _unavailable,
            TopicNotFoundError: _no_topic,
            KafkaFailure: _kafka_unavailable,
            InfraError: _kafka_unavailable,
            Exception: _internal,
        },
        lifespan=lifespan,
    )
    return app


class _Server(uvicorn.Server):
    """uvicorn's server, stopping on SIGINT/SIGTERM like it, without raising the signal
    again afterwards: a Playground stopped on purpose returns (exit code 0), and
    `demo --console` goes on to stop its workers."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in _STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def serve(
    settings: Settings, app: Starlette, on_ready: Callable[[str], None] | None = None
) -> None:
    """Run ``app`` on the configured address and port until SIGINT/SIGTERM."""
    config = uvicorn.Config(
        app, host=settings.api_bind_address, port=settings.api_port, log_level="warning",
        lifespan="on",
    )  # fmt: skip
    server = _Server(config)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started and on_ready is not None:
            on_ready(url_of(server))
        await task

    asyncio.run(run())


def url_of(server: uvicorn.Server) -> str:
    """The address the server really listens on (a port of 0 is chosen by the system)."""
    for s in server.servers:
        for sock in s.sockets:
            host, port = sock.getsockname()[:2]
            host = f"[{host}]" if ":" in host else host
            return f"http://{host}:{port}"
    return f"http://{server.config.host}:{server.config.port}"
