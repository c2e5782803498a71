"""`factstream lag`: consumer lag per stage, topic and partition (streams/ops/lag.py)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from streams.cli.console import JsonFlag, out, print_json, say_error, settings_of, usage_error
from streams.cli.params import StageChoice
from streams.cli.tables import lag_table
from streams.kafka import admin as ka
from streams.kafka.client import require_cluster
from streams.ops.lag import StageLag, collect_lag, group_chooser, lag_as_json
from streams.ops.lag_exporter import lag_server, serve_until_signal
from streams.pipeline import STAGES
from streams.runtime import jsonlog


def nothing_to_read(report: list[StageLag]) -> str | None:
    """Why there is nothing to read, when no topic of the chosen stages exists."""
    if report and all(s.error is not None for s in report):
        topics = ", ".join(dict.fromkeys(s.topic for s in report))
        return f"none of the topics exists ({topics}); create them with `factstream topics create`"
    return None


MAX_WATCH_S = 86_400  # a day


def lag_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    watch: Annotated[
        float | None,
        typer.Option(help="Refresh every SECONDS until Ctrl-C (--json: one line per refresh)."),
    ] = None,
    stage: Annotated[
        list[StageChoice] | None, typer.Option(help="Only this stage (repeatable).")
    ] = None,
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
            min=0,
            max=65535,
            help="Serve the lag as Prometheus metrics (kafka_exporter names) on PORT until"
            " stopped, instead of printing it.",
        ),
    ] = None,
) -> None:
    """Consumer lag per stage, topic and partition: log-end offset minus committed offset.

    Reads the groups factstream-<stage> unless --group / --group-prefix name others (the
    workers' --group). A partition where the group has not committed yet counts from the
    earliest offset still in the log (where a new worker starts), shown as committed "-";
    a group that does not exist shows "-" everywhere. Exit code 1 when none of the
    stages' topics exists (nothing to read).
    """
    if watch is not None and not 0 < watch <= MAX_WATCH_S:  # NaN too
        # 0 refreshed in a busy loop that asked the cluster as fast as it answered; a
        # negative, infinite or NaN interval printed once and then a traceback.
        raise usage_error(f"--watch is a number of seconds above 0, at most {MAX_WATCH_S}")
    settings = settings_of(ctx)
    named = [s.value for s in stage or []]
    try:
        group_of = group_chooser(named, group=group, group_prefix=group_prefix)
    except ValueError as exc:
        raise usage_error(exc) from exc
    stages = named or list(STAGES)
    admin = ka.admin_client(settings)
    if serve is not None:
        jsonlog.configure("INFO")  # a long-running exporter logs like a worker
        server = lag_server(settings, admin, stages, group_of, serve)
        groups = ", ".join(group_of(s) for s in stages)
        where = f"http://{settings.metrics_bind_address}:{server.port}"
        out.print(f"serving the lag of {groups} on {where}/metrics")
        serve_until_signal(server)
        return
    require_cluster(settings)
    while True:
        report = collect_lag(settings, admin, stages, group_of)
        why = nothing_to_read(report)
        if as_json:
            print_json(lag_as_json(report))
        elif why is None or watch is not None:
            if watch is not None:
                out.clear()
            out.print(lag_table(report, all_partitions))
        if watch is None:
            if why is not None:
                say_error(why)
                raise typer.Exit(1)
            return
        try:
            time.sleep(watch)
        except KeyboardInterrupt:
            return
