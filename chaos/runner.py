"""The drill: a fault-free run, then the same input under faults, then reconciliation."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from chaos import reconcile as rc
from chaos.infra import Infra
from chaos.pipeline import Run, RunResult
from chaos.poison import corpus
from chaos.profile import MAX_RECORD_BYTES, Profile, schedule
from chaos.scenario import build
from chaos.state import DbState, DeadLetterSeen, read_db, read_dead_letters, read_fault_log
from streams.kafka import topics as topic_ops
from streams.settings import Settings
from streams.store.databases import drop_database


@dataclass
class DrillResult:
    reconciliation: rc.Reconciliation
    base: RunResult
    chaos: RunResult


async def drill(profile: Profile, infra: Infra, run_dir: Path, seed: int,
                say: Callable[[str], None] = print) -> DrillResult:  # fmt: skip
    run_dir.mkdir(parents=True, exist_ok=True)
    dataset = f"chaos{seed % 100000:05d}"
    scenario = build(seed, profile.tenants, profile.episodes_per_tenant, dataset)
    poison = corpus(
        Settings(max_record_bytes=MAX_RECORD_BYTES), dataset, [t.key for t in scenario.tenants]
    )
    say(
        f"drill '{profile.name}' seed {seed}: {profile.episodes} episodes over"
        f" {profile.tenants} tenants + {len(poison)} poison records; logs in {run_dir}"
    )
    actions = schedule(profile, random.Random(seed))
    if not infra.restartable:
        actions = [a for a in actions if a.kind not in ("restart-kafka", "restart-postgres")]
    runs = []
    for name, faults, label in (("base", None, "fault-free run"), ("chaos", actions, "chaos run")):
        run = await Run(
            name, profile, infra, scenario, poison, run_dir, chaos=faults, seed=seed, say=say
        ).execute()
        say(f"{label}: {'finished' if run.finished else 'DID NOT FINISH'} in {run.elapsed_s:.0f} s")
        # What each run left is read at once and its topics deleted: fewer partitions for
        # the broker to recover after its kill -9, nothing left behind on a shared broker.
        runs.append((run, *await _collect(run)))
    (base, base_db, base_dead), (chaos, chaos_db, chaos_dead) = runs

    rec = rc.Reconciliation()
    cap = chaos.settings.max_retries
    rc.check_ledger(rec, "fault-free", scenario, base_db, cap)
    rc.check_ledger(rec, "chaos", scenario, chaos_db, cap)
    rc.check_outcomes(rec, scenario, base_db, chaos_db)
    rc.check_facts(rec, scenario, base_db, chaos_db)
    rc.check_integrity(rec, scenario, chaos_db)
    rc.check_dead_letters(rec, "fault-free", poison, base_dead)
    rc.check_dead_letters(rec, "chaos", poison, chaos_dead)
    _describe_faults(rec, profile, chaos)
    return DrillResult(rec, base, chaos)


async def _collect(run: RunResult) -> tuple[DbState, list[DeadLetterSeen]]:
    db = await read_db(run.database_url)
    dead = await asyncio.to_thread(read_dead_letters, run.settings)
    names = [s.name for s in topic_ops.all_topics(run.settings)]
    await asyncio.to_thread(topic_ops.delete_topics, run.settings, names)
    return db, dead


async def drop_databases(server_url: str, result: DrillResult) -> None:
    """Drop both runs' databases (the CI drill; `make chaos` keeps them to look at)."""
    for run in (result.base, result.chaos):
        await drop_database(server_url, run.database_url)


def _describe_faults(rec: rc.Reconciliation, profile: Profile, chaos: RunResult) -> None:
    counts = read_fault_log(chaos.fault_log)
    attempts, faults = counts["attempts"], counts["faults"]
    share = faults / attempts if attempts else 0.0
    kinds = ", ".join(f"{k} {counts[f'fault:{k}']}" for k in ("429", "500", "timeout", "malformed"))
    rec.add(
        "model faults injected (below the provider's retry loop)",
        f"{profile.fault_rate:.0%} of attempts",
        f"{faults}/{attempts} = {share:.1%}: {kinds}",
        abs(share - profile.fault_rate) < 0.05 if attempts > 200 else None,
    )
    by_stage: dict[str, int] = {}
    for name, n in chaos.kills.items():
        stage = name.rsplit("-", 1)[0]
        by_stage[stage] = by_stage.get(stage, 0) + n
    kills = sum(by_stage.values())
    rec.add(
        "kill -9 of workers (restarted)",
        f">= {profile.kills}",
        f"{kills}: " + ", ".join(f"{s} {n}" for s, n in sorted(by_stage.items())),
        kills >= profile.kills,
    )
    done = [a["action"] for a in chaos.actions]
    for what, wanted, label in (
        ("kafka back", profile.restart_kafka, "Kafka broker restart"),
        ("postgres back", profile.restart_postgres, "Postgres restart"),
        ("SIGCONT", profile.pause_s > 0, "worker paused past max.poll.interval.ms"),
    ):
        if wanted:
            detail = [a for a in chaos.actions if a["action"] == what]
            rec.add(label, "1", f"{done.count(what)} {detail[:1]}", done.count(what) >= 1)
    crashes = {n: c for n, c in chaos.crashes.items()}
    rec.add(
        "processes that exited on their own (restarted)",
        "information",
        ", ".join(f"{n} exit {c}" for n, c in crashes.items()) or "none",
        None,
    )
    rec.add(
        "workers restarted by the liveness probe (/livez failing 45 s)",
        "information",
        "; ".join(chaos.liveness_kills) or "none",
        None,
    )


def render(rec: rc.Reconciliation, console: Console) -> None:
    table = Table(title="chaos reconciliation")
    for col in ("check", "expected", "found", "result"):
        table.add_column(col, overflow="fold")
    for c in rec.checks:
        verdict = "info" if c.ok is None else "[green]ok[/green]" if c.ok else "[red]FAIL[/red]"
        table.add_row(c.name, c.expected, c.found, verdict)
    console.print(table)
    for line in rec.details:
        console.print(f"  {line}", highlight=False, markup=False)
    console.print("[green]RECONCILED[/green]" if rec.ok else "[red]NOT RECONCILED[/red]")


def write_report(result: DrillResult, run_dir: Path) -> Path:
    path = run_dir / "reconciliation.json"
    path.write_text(json.dumps({
        "ok": result.reconciliation.ok,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "checks": [asdict(c) for c in result.reconciliation.checks],
        "details": result.reconciliation.details,
        "chaos_actions": result.chaos.actions,
        "elapsed_s": {"fault_free": result.base.elapsed_s, "chaos": result.chaos.elapsed_s},
    }, indent=2, default=str))  # fmt: skip
    return path
