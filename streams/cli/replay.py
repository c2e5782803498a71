"""`factstream replay STAGE`: the typer command over streams/ops/replay.py and reprocess.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from streams import pipeline
from streams.cli.console import fail, out, parse_partitions, settings_of
from streams.kafka import admin as ka
from streams.kafka.client import KafkaFailure
from streams.ops.replay import GroupActiveError, ReplayPlan, execute_plan, plan_replay, reset_spec
from streams.ops.reprocess import reprocess


def replay_command(
    ctx: typer.Context,
    stage: Annotated[str, typer.Argument(help="Stage whose consumer group moves.")],
    to_earliest: Annotated[bool, typer.Option("--to-earliest")] = False,
    to_latest: Annotated[bool, typer.Option("--to-latest")] = False,
    to_datetime: Annotated[
        str | None, typer.Option(help="ISO 8601, e.g. 2026-03-01T12:00:00Z (no zone = UTC).")
    ] = None,
    by_duration: Annotated[
        str | None, typer.Option(help="ISO 8601 duration back from now: PT30M, PT1H, P1D.")
    ] = None,
    shift_by: Annotated[
        int | None, typer.Option(help="Move by N records (negative = back).")
    ] = None,
    to_offset: Annotated[int | None, typer.Option(help="Go to offset N.")] = None,
    topic: Annotated[
        str | None, typer.Option(help="Topic (default: the stage's input topic).")
    ] = None,
    partitions: Annotated[
        str | None, typer.Option(help="Only these partitions, e.g. 0,1 (default: all).")
    ] = None,
    group: Annotated[
        str | None, typer.Option(help="Consumer group (default: factstream-<stage>).")
    ] = None,
    execute: Annotated[
        bool, typer.Option("--execute/--dry-run", help="Apply the plan (default: dry run).")
    ] = False,
    reprocess_flag: Annotated[
        bool,
        typer.Option(
            "--reprocess",
            help="summarize/extract: re-publish the range's episodes with reprocess=true"
            " instead of moving offsets, so done episodes are extracted again.",
        ),
    ] = False,
) -> None:
    """Reset a stage's consumer group offsets, like `kafka-consumer-groups --reset-offsets`.

    Prints the plan; changes nothing without --execute. Refuses to execute while the
    group has active members (stop the stage's workers first). Offsets are clamped to
    the log; a partition never committed counts as at its earliest offset.
    """
    settings = settings_of(ctx)
    try:
        spec_of_stage = pipeline.stage(stage)
        if reprocess_flag and not spec_of_stage.reads_episodes:
            episode_stages = [s.name for s in pipeline.PIPELINE if s.reads_episodes]
            raise ValueError(
                f"--reprocess applies to {' and '.join(episode_stages)} (episodes); for {stage}"
                " move the offsets (without --reprocess)"
            )
        spec = reset_spec(
            to_earliest=to_earliest,
            to_latest=to_latest,
            to_datetime=to_datetime,
            by_duration=by_duration,
            shift_by=shift_by,
            to_offset=to_offset,
            now=datetime.now(UTC),
        )
        admin = ka.admin_client(settings)
        plan = plan_replay(
            admin,
            stage=stage,
            group=group or spec_of_stage.group,
            topic=topic or spec_of_stage.input_topic(settings),
            spec=spec,
            partitions=parse_partitions(partitions),
        )
    except (ValueError, LookupError, KafkaFailure) as exc:
        raise fail(exc) from exc
    out.print(plan_table(plan, reprocess_flag))
    if reprocess_flag:
        _reprocess(ctx, plan, execute)
        return
    if not execute:
        if plan.members:
            out.print(f"[yellow]warning:[/yellow] {GroupActiveError(plan.group, plan.members)}")
        out.print("dry run: nothing changed; add --execute to apply.")
        return
    try:
        execute_plan(admin, plan)
    except (GroupActiveError, KafkaFailure) as exc:
        raise fail(exc) from exc
    out.print(
        f"moved {len(plan.partitions)} partition(s) of group {plan.group}: "
        f"{plan.to_replay} records to replay, {plan.to_skip} skipped. Start the workers again.",
        highlight=False,
    )


def _reprocess(ctx: typer.Context, plan: ReplayPlan, execute: bool) -> None:
    total = plan.to_replay
    if not execute:
        out.print(
            f"dry run: would re-publish {total} already-processed episode records to"
            f" {plan.topic} with reprocess=true (offsets stay); add --execute to do it."
        )
        return
    columns = (
        TextColumn("re-publishing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=out, transient=False) as bar:
        task = bar.add_task("reprocess", total=total)
        try:
            result = reprocess(settings_of(ctx), plan, on_progress=lambda n: bar.advance(task, n))
        except (RuntimeError, TimeoutError, KafkaFailure) as exc:
            raise fail(exc) from exc
    out.print(f"re-published {result.copied} episodes with reprocess=true to {plan.topic}.")
    if result.not_episodes:
        out.print(
            f"[yellow]{len(result.not_episodes)} records were not valid episodes and"
            f" were not copied[/yellow] (first: {result.not_episodes[0]})"
        )


def plan_table(plan: ReplayPlan, reprocess_mode: bool = False) -> Table:
    action = "re-publish" if reprocess_mode else "to replay"
    table = Table(
        title=f"replay {plan.stage}: group {plan.group}, topic {plan.topic}, {plan.spec.describe()}"
    )
    # Reprocessing moves no offset, so nothing is skipped: that column is left out.
    columns = ["partition", "earliest", "log-end", "committed", "new offset", action]
    columns += [] if reprocess_mode else ["to skip"]
    for col in columns:
        table.add_column(col, justify="right")
    for p in plan.partitions:
        cells = [
            str(p.partition),
            str(p.earliest),
            str(p.log_end),
            "-" if p.committed is None else str(p.committed),
            str(p.new_offset),
            str(p.to_replay),
        ]
        table.add_row(*cells, *([] if reprocess_mode else [str(p.to_skip)]))
    totals = ["[bold]total[/bold]", "", "", "", "", f"[bold]{plan.to_replay}[/bold]"]
    table.add_row(*totals, *([] if reprocess_mode else [f"[bold]{plan.to_skip}[/bold]"]))
    return table
