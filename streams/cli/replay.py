"""`factstream replay STAGE`: the typer command over streams/ops/replay.py and reprocess.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from streams import pipeline
from streams.cli.console import (
    JsonFlag,
    err,
    fail,
    out,
    parse_partitions,
    print_json,
    settings_of,
    usage_error,
)
from streams.cli.params import StageChoice
from streams.cli.printable import safe_text
from streams.kafka import admin as ka
from streams.kafka.client import require_cluster
from streams.ops.replay import GroupActiveError, ReplayPlan, execute_plan, plan_replay, reset_spec
from streams.ops.reprocess import ReprocessResult, reprocess
from streams.settings import Settings


def replay_command(
    ctx: typer.Context,
    stage: Annotated[StageChoice, typer.Argument(help="Stage whose consumer group moves.")],
    to_earliest: Annotated[
        bool, typer.Option("--to-earliest", help="Go to the earliest offset still in the log.")
    ] = False,
    to_latest: Annotated[
        bool, typer.Option("--to-latest", help="Go to the log end (skip everything unread).")
    ] = False,
    to_datetime: Annotated[
        str | None, typer.Option(help="ISO 8601, e.g. 2026-03-01T12:00:00Z (no zone = UTC).")
    ] = None,
    by_duration: Annotated[
        str | None, typer.Option(help="ISO 8601 duration back from now: PT30M, PT1H, P1D.")
    ] = None,
    shift_by: Annotated[
        int | None,
        typer.Option(
            help="Move by N records from the committed offset (negative = back); refused on"
            " partitions the group never committed, as kafka-consumer-groups does."
        ),
    ] = None,
    uncommitted_from_earliest: Annotated[
        bool,
        typer.Option(
            "--uncommitted-from-earliest",
            help="With --shift-by: shift never-committed partitions from their earliest offset.",
        ),
    ] = False,
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
    as_json: JsonFlag = False,
) -> None:
    """Reset a stage's consumer group offsets, like `kafka-consumer-groups --reset-offsets`.

    Prints the plan; changes nothing without --execute. Refuses to execute while the
    group has active members (stop the stage's workers first). Offsets are clamped to
    the log; a partition never committed counts as at its earliest offset (but
    --shift-by refuses it unless --uncommitted-from-earliest).
    """
    settings = settings_of(ctx)
    spec_of_stage = pipeline.stage(stage.value)
    if reprocess_flag and not spec_of_stage.reads_episodes:
        episode_stages = [s.name for s in pipeline.PIPELINE if s.reads_episodes]
        raise usage_error(
            f"--reprocess applies to {' and '.join(episode_stages)} (episodes); for"
            f" {stage.value} move the offsets (without --reprocess)"
        )
    if uncommitted_from_earliest and shift_by is None:
        raise usage_error("--uncommitted-from-earliest goes with --shift-by")
    try:
        spec = reset_spec(
            to_earliest=to_earliest, to_latest=to_latest, to_datetime=to_datetime,
            by_duration=by_duration, shift_by=shift_by, to_offset=to_offset,
            now=datetime.now(UTC),
        )  # fmt: skip
    except ValueError as exc:
        raise usage_error(exc) from exc
    chosen = parse_partitions(partitions)
    require_cluster(settings)
    admin = ka.admin_client(settings)
    plan = plan_replay(
        admin, stage=stage.value, group=group or spec_of_stage.group,
        topic=topic or spec_of_stage.input_topic(settings), spec=spec, partitions=chosen,
        uncommitted_from_earliest=uncommitted_from_earliest,
    )  # fmt: skip
    if reprocess_flag:
        _reprocess(settings, plan, execute, as_json)
    else:
        _move_offsets(admin, plan, execute, as_json)


def _move_offsets(admin: ka.AdminClient, plan: ReplayPlan, execute: bool, as_json: bool) -> None:
    if not as_json:
        out.print(plan_table(plan))
    if not execute:
        if as_json:
            print_json(plan_json(plan, executed=False))
            return
        if plan.members:
            warning = str(GroupActiveError(plan.group, plan.members))
            out.print(Text.assemble(("warning: ", "yellow"), safe_text(warning)))
        out.print("dry run: nothing changed; add --execute to apply.")
        return
    try:
        execute_plan(admin, plan)
    except GroupActiveError as exc:
        raise fail(exc) from exc
    if as_json:
        print_json(plan_json(plan, executed=True))
        return
    out.print(
        f"moved {len(plan.partitions)} partition(s) of group {plan.group}: "
        f"{plan.to_replay} records to replay, {plan.to_skip} skipped. Start the workers again."
    )


def _reprocess(settings: Settings, plan: ReplayPlan, execute: bool, as_json: bool) -> None:
    total = plan.to_replay
    if not as_json:
        out.print(plan_table(plan, reprocess_mode=True))
    if not execute:
        if as_json:
            print_json(plan_json(plan, executed=False, reprocess_mode=True))
            return
        out.print(
            f"dry run: would re-publish {total} already-processed episode records to"
            f" {plan.topic} with reprocess=true (offsets stay); add --execute to do it."
        )
        return
    columns = (TextColumn("re-publishing"), BarColumn(), MofNCompleteColumn())
    # The bar goes to stderr with --json, so stdout holds the JSON document alone.
    with Progress(*columns, TimeRemainingColumn(), console=err if as_json else out) as bar:
        task = bar.add_task("reprocess", total=total)
        try:
            result = reprocess(settings, plan, on_progress=lambda n: bar.advance(task, n))
        except (RuntimeError, TimeoutError) as exc:
            raise fail(exc) from exc
    if as_json:
        print_json(plan_json(plan, executed=True, reprocess_mode=True, result=result))
        return
    out.print(f"re-published {result.copied} episodes with reprocess=true to {plan.topic}.")
    if result.not_episodes:
        not_copied = f"{len(result.not_episodes)} records were not valid episodes or not"
        first = f" keyed by their tenant, and were not copied (first: {result.not_episodes[0]})"
        out.print(Text.assemble((not_copied, "yellow"), safe_text(first)))


def plan_json(
    plan: ReplayPlan, *, executed: bool, reprocess_mode: bool = False,
    result: ReprocessResult | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The machine-readable plan (and, executed, what was done) of `replay --json`."""
    doc: dict[str, Any] = {
        "stage": plan.stage,
        "group": plan.group,
        "topic": plan.topic,
        "reset": plan.spec.describe(),
        "mode": "reprocess" if reprocess_mode else "offsets",
        "executed": executed,
        "active_members": [str(m) for m in plan.members],
        "to_replay": plan.to_replay,
        "to_skip": 0 if reprocess_mode else plan.to_skip,
        "partitions": [
            {
                "partition": p.partition,
                "earliest": p.earliest,
                "log_end": p.log_end,
                "committed": p.committed,
                "new_offset": p.new_offset,
                "to_replay": p.to_replay,
                "to_skip": 0 if reprocess_mode else p.to_skip,
            }
            for p in plan.partitions
        ],
    }
    if result is not None:
        doc["republished"] = result.copied
        doc["not_episodes"] = [str(r) for r in result.not_episodes]
    return doc


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
    totals: list[str | Text] = [safe_text("total", "bold"), "", "", "", ""]
    totals.append(safe_text(plan.to_replay, "bold"))
    table.add_row(*totals, *([] if reprocess_mode else [safe_text(plan.to_skip, "bold")]))
    return table
