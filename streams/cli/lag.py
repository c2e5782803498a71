"""`factstream lag`: consumer lag per stage, topic and partition (streams/ops/lag.py)."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer

from streams import pipeline
from streams.cli.console import fail, out, settings_of
from streams.cli.tables import lag_table
from streams.kafka import admin as ka
from streams.kafka.client import KafkaFailure
from streams.ops.lag import collect_lag, group_chooser, lag_as_json
from streams.ops.lag_exporter import lag_server, serve_until_signal
from streams.pipeline import STAGES


def lag_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    watch: Annotated[
        float | None,
        typer.Option(help="Refresh every SECONDS until Ctrl-C (--json: one line per refresh)."),
    ] = None,
    stage: Annotated[list[str] | None, typer.Option(help="Only this stage (repeatable).")] = None,
    all_partitions: Annotated[
        bool, typer.Option("--all", help="Also list partitions that never held a record.")
    ] = False,
    group: Annotated[
        str | None,
        typer.Option(
            help="Read this consumer group instead of factstream-<stage>;"
            " needs exactly one --stage."
        ),
    ] = None,
    group_prefix: Annotated[
        str | None,
        typer.Option(
            help="Read the groups <PREFIX><stage>, e.g. demo.<run id>.factstream- for a demo run."
        ),
    ] = None,
    serve: Annotated[
        int | None,
        typer.Option(
            metavar="PORT",
            help="Serve the lag as Prometheus metrics (kafka_exporter names) on PORT until"
            " stopped, instead of printing it.",
        ),
    ] = None,
) -> None:
    """Consumer lag per stage, topic and partition: log-end offset minus committed offset.

    Reads the groups factstream-<stage> unless --group / --group-prefix name others (the
    workers' --group). A partition where the group has not committed yet counts from the
    earliest offset still in the log (where a new worker starts), shown as committed "-";
    a group that does not exist shows "-" everywhere.
    """
    settings = settings_of(ctx)
    try:
        named = [pipeline.stage(s).name for s in stage or []]
        group_of = group_chooser(named, group=group, group_prefix=group_prefix)
    except ValueError as exc:
        raise fail(exc) from exc
    stages = named or list(STAGES)
    admin = ka.admin_client(settings)
    if serve is not None:
        server = lag_server(settings, admin, stages, group_of, serve)
        groups = ", ".join(group_of(s) for s in stages)
        where = f"http://{settings.metrics_bind_address}:{server.port}"
        out.print(f"serving the lag of {groups} on {where}/metrics", markup=False)
        serve_until_signal(server)
        return
    while True:
        try:
            report = collect_lag(settings, admin, stages, group_of)
        except KafkaFailure as exc:
            raise fail(exc) from exc
        if as_json:
            print(json.dumps(lag_as_json(report)), flush=True)
        else:
            if watch is not None:
                out.clear()
            out.print(lag_table(report, all_partitions))
        if watch is None:
            return
        try:
            time.sleep(watch)
        except KeyboardInterrupt:
            return
