"""`factstream worker STAGE [--concurrency N] [--metrics-port P]`: run one stage worker.

``register(app)`` adds the command to the main CLI; ``python -m streams.cli.worker``
runs it standalone (tests and the bench start real worker processes this way).
Before it starts it waits for the broker and the database (streams/cli/startup.py).
Exit codes: 0 after a clean drain (or a stop while waiting), 1 after a fatal Kafka error
or with a database that is not migrated (let the supervisor restart it), 2 for a usage
error or a wrong setting (another vector size than the database's), 3 when a Kafka
transactional call hung past ``kafka_txn_watchdog_s`` (streams/runtime/watchdog.py;
restart it too).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from enum import StrEnum
from typing import Annotated, Any

import typer
from prometheus_client import CollectorRegistry
from pydantic import ValidationError

from streams.cli.console import describe_settings_error
from streams.cli.faults import ReportingCommand
from streams.cli.startup import checks_of, wait_until_ready
from streams.errors import ConfigError, InfraError
from streams.model.metered import ModelMetrics, metered
from streams.pipeline import STAGES, StageFactory, factory_of
from streams.pipeline import stage as spec_of
from streams.runtime import jsonlog
from streams.runtime.config import WorkerConfig, default_instance_id
from streams.runtime.health import ReadyCheck
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.stage import StageDeps
from streams.runtime.worker import Worker
from streams.settings import Settings, load_settings

log = logging.getLogger("streams.cli.worker")


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


class LazyModels:
    """Builds the model providers (streams.model.loader) on first use, so stages that
    never call a model need no API key; with ``meter``, every call is measured
    (streams/model/metered.py: the same metrics whatever the provider)."""

    def __init__(self, settings: Settings, meter: ModelMetrics | None = None) -> None:
        self._settings = settings
        self._meter = meter
        self._models: Any = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._models is None:
            from streams.model.loader import build_models

            models = build_models(self._settings)
            self._models = models if self._meter is None else metered(models, self._meter)
        return getattr(self._models, name)


def plans_once(stage: str, stage_factory: str | None) -> bool:
    """Whether the stage's sessions plan each statement once (``StageSpec.plans_once``):
    the table's promise holds for its own code only, not for a ``--stage-factory``."""
    return stage_factory is None and spec_of(stage).plans_once


async def run_worker(
    settings: Settings,
    factory: StageFactory,
    *,
    group: str | None = None,
    instance_id: str | None = None,
    concurrency: int | None = None,
    metrics_port: int | None = None,
    pool_name: str | None = None,
    plans_once: bool = False,
) -> int:
    pool: Any = None
    if settings.database_url is not None:
        from streams.store.db import create_pool, round_trips

        pool = await create_pool(
            settings.require_database_url(), application_name=pool_name, plans_once=plans_once
        )
    try:
        registry = CollectorRegistry()  # the worker's metrics: runtime, models, pool
        meter = ModelMetrics(registry)
        deps = StageDeps(
            settings=settings,
            pool=pool,
            models=LazyModels(settings, meter),
            worker_id=instance_id or default_instance_id(),
        )
        stage = factory(deps)
        meter.stage = stage.name
        metrics = WorkerMetrics(stage.name, registry)
        checks: dict[str, ReadyCheck] = {}
        if pool is not None:
            from streams.store.db import ping

            metrics.watch_pool(pool, lambda: round_trips(pool))
            checks["postgres"] = functools.partial(ping, pool)
        cfg = WorkerConfig.from_settings(
            settings,
            stage.name,
            group=group,
            instance_id=instance_id,
            concurrency=concurrency,
            metrics_port=metrics_port,
            input_topic=stage.input_topic,
        )
        worker = Worker(stage, cfg, metrics=metrics, install_signals=True, ready_checks=checks)
        return await worker.run()
    finally:
        if pool is not None:
            await pool.close()


def worker_command(
    stage: Annotated[
        str,
        typer.Argument(
            help=f"The stage to run: {' | '.join(STAGES)} (any name with --stage-factory).",
            show_default=False,
        ),
    ],
    concurrency: Annotated[
        int | None,
        typer.Option("--concurrency", "-c", min=1, help="Records in flight (default: settings)."),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            "--metrics-port", min=0, max=65535, help="Serve /metrics, /livez and /readyz here."
        ),
    ] = None,
    stage_factory: Annotated[
        str | None, typer.Option("--stage-factory", help="'package.module:factory' to run.")
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            "--group",
            envvar="FACTSTREAM_WORKER_GROUP",
            help="Consumer group (default factstream-<stage>).",
        ),
    ] = None,
    instance_id: Annotated[
        str | None,
        typer.Option(
            "--instance-id",
            envvar="FACTSTREAM_WORKER_INSTANCE_ID",
            help="Stable id: static membership + restart-stable transactional.id.",
        ),
    ] = None,
    log_level: Annotated[
        LogLevel,
        typer.Option(
            "--log-level",
            envvar="FACTSTREAM_LOG_LEVEL",
            case_sensitive=False,
            help="Least level logged.",
        ),
    ] = LogLevel.INFO,
) -> None:
    """Run one stage worker until SIGTERM/SIGINT (drains in-flight work, then exits).

    Logs JSON lines on stderr. Waits for the broker and the database before it starts.
    """
    jsonlog.configure(log_level.value)
    fields = {"stage": stage}
    try:
        factory = factory_of(stage, stage_factory)
        settings = load_settings()
    except ValidationError as exc:
        log.error("cannot start worker: %s", describe_settings_error(exc), extra=fields)
        raise typer.Exit(2) from exc
    except (ConfigError, ImportError, AttributeError) as exc:
        log.error("cannot start worker: %s", exc, extra=fields)
        raise typer.Exit(2) from exc

    async def wait_then_run() -> int:
        if not await wait_until_ready(checks_of(settings), extra=fields):
            return 0  # stopped before it started: nothing to drain
        return await run_worker(
            settings,
            factory,
            group=group,
            instance_id=instance_id,
            concurrency=concurrency,
            metrics_port=metrics_port,
            pool_name=f"factstream-{stage}",  # pg_stat_activity shows a session's stage
            plans_once=plans_once(stage, stage_factory),
        )

    try:
        code = asyncio.run(wait_then_run())
    except (ConfigError, InfraError) as exc:  # no traceback: what is wrong, where, the fix
        log.error("cannot start worker: %s", exc, extra=fields)
        raise typer.Exit(2 if isinstance(exc, ConfigError) else 1) from exc
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_command)


def main() -> None:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command(cls=ReportingCommand)(worker_command)
    app()


if __name__ == "__main__":
    main()
