"""`factstream demo` (and `make demo`): the whole system on the bundled conversations.

Brings Kafka and Postgres up (what `dev up` does; only what it started is stopped at the
end), creates a FRESH database ``factstream_demo`` on that server (dropped and recreated
every run, kept afterwards for `factstream facts` / `trace`), creates this run's topics
under the prefix ``demo.<run id>.`` (deleted at the end with their consumer groups),
starts one `factstream worker STAGE` subprocess per stage plus `factstream sweep`,
publishes streams/demo/data/episodes.jsonl, waits until every episode is terminal in
the ledger, prints the facts with history and a lag summary, and stops the workers by
SIGTERM.

Models: without a Gemini API key the workers replay the bundled cassette (answers that
our scripted demo model gave, not Gemini's). With a key they call Gemini.
``--record-cassette`` re-records the cassette from the scripted demo model.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
from rich.console import Console

from streams.demo.report import DemoResults, gather_results, terminal_state
from streams.demo.setup import (
    CASSETTE,
    DEMO_MODEL,
    EPISODES,
    SWEEP_INTERVAL_S,
    DemoError,
    choose_models,
    fresh_database,
    save_cassette,
)
from streams.dev import infra as devinfra
from streams.dev.proc import remember_child, tail, terminate
from streams.errors import InfraError
from streams.kafka import topics as topic_ops
from streams.kafka.client import KafkaFailure, admin_client, require_cluster
from streams.ops.publish import publish_lines
from streams.pipeline import STAGES
from streams.settings import Settings
from streams.store import traces
from streams.store.db import connect


@dataclass
class DemoRun:
    """What this run set up, so that exactly that is torn down."""

    run_dir: Path
    prefix: str
    dev: Settings  # where `dev up` records what it started
    settings: Settings | None = None
    infra_started: list[str] = field(default_factory=list)
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    topics: list[str] = field(default_factory=list)


def factstream_cmd() -> list[str]:
    script = Path(sys.executable).with_name("factstream")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from streams.cli.main import app; app()"]


def start_processes(run: DemoRun, env: dict[str, str], console: Console) -> None:
    """One `factstream worker STAGE` per stage (own consumer group per run) + the sweeper."""
    commands = {stage: ["worker", stage] for stage in STAGES} | {"sweep": ["sweep"]}
    for name, args in commands.items():
        log_path = run.run_dir / f"{name}.log"
        child_env = env | {"FACTSTREAM_WORKER_GROUP": group_of(run.prefix, name)}
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                factstream_cmd() + args, env=child_env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        remember_child(proc)
        run.procs[name] = proc
    console.print(
        f"started {len(run.procs)} processes: "
        + ", ".join(f"{name} (pid {p.pid})" for name, p in run.procs.items())
        + f"; logs in {run.run_dir}"
    )


def check_external(settings: Settings, up: devinfra.UpResult) -> None:
    """Addresses from the environment are not started by `dev up`: ask them first, so an
    unreachable one is named in one line instead of failing a step half-way."""

    async def postgres_answers(url: str) -> None:
        await (await connect(url, codecs=False)).close()

    for svc in up.services:
        if svc.kind == "external" and svc.name == "kafka":
            require_cluster(settings)
        elif svc.kind == "external" and svc.name == "postgres":
            asyncio.run(postgres_answers(svc.address))


def group_of(prefix: str, stage: str) -> str:
    return f"{prefix}factstream-{stage}"


def log_tails(run: DemoRun, lines: int = 12) -> str:
    parts = []
    for name, proc in run.procs.items():
        state = "running" if proc.poll() is None else f"exit {proc.returncode}"
        path = run.run_dir / f"{name}.log"
        parts.append(f"--- {name} (pid {proc.pid}, {state}), {path}:\n{tail(path, lines)}")
    return "\n".join(parts)


async def wait_terminal(
    url: str,
    settings: Settings,
    wanted: set[tuple[str, str, str]],
    run: DemoRun,
    timeout_s: float,
    console: Console,
) -> None:
    """Poll the ledger until every published episode is terminal (or fail with why)."""
    deadline = time.monotonic() + timeout_s
    conn = await asyncpg.connect(url)
    last_shown = -1
    try:
        while True:
            rows = await traces.ledger_rows(conn)
            done = {
                (r["dataset"], r["project_id"], r["episode_id"])
                for r in rows
                if terminal_state(r, settings.max_retries)
            }
            finished = len(done & wanted)
            if finished != last_shown:
                console.print(f"  {finished}/{len(wanted)} episodes finished", highlight=False)
                last_shown = finished
            if finished == len(wanted):
                return
            dead = [n for n, p in run.procs.items() if p.poll() is not None]
            if dead:
                raise DemoError(f"{', '.join(dead)} exited early\n{log_tails(run)}")
            if time.monotonic() > deadline:
                missing = sorted(e for _, _, e in wanted - done)
                raise DemoError(
                    f"timed out after {timeout_s:.0f} s; not finished: {', '.join(missing)}\n"
                    + log_tails(run)
                )
            await asyncio.sleep(0.3)
    finally:
        await conn.close()


def stop(run: DemoRun, console: Console, keep_topics: bool) -> None:
    """Stop what this run started, in reverse: workers, its topics and groups, infra."""
    for proc in run.procs.values():
        if proc.poll() is None:
            proc.terminate()  # SIGTERM to all first: they drain in parallel
    for name, proc in run.procs.items():
        killed = terminate(proc.pid, timeout_s=30)
        if killed:
            console.print(f"{name} did not drain within 30 s: killed", style="yellow")
    if run.procs:
        console.print(f"stopped {len(run.procs)} processes (SIGTERM)")
    if run.settings is not None and run.topics and not keep_topics:
        try:
            topic_ops.delete_topics(run.settings, run.topics)
            admin = admin_client(run.settings)
            groups = [group_of(run.prefix, s) for s in STAGES]
            for future in admin.delete_consumer_groups(groups, request_timeout=15).values():
                with contextlib.suppress(Exception):  # a group that never committed
                    future.result()
            console.print(f"deleted this run's topics ({run.prefix}*) and consumer groups")
        except Exception as exc:  # teardown goes on; say what is left behind
            console.print(f"could not delete topics {run.prefix}*: {exc}", style="yellow")
    for name in run.infra_started:
        console.print(devinfra.stop_service(run.dev, name) or f"{name}: nothing to stop")


def run_demo(
    settings: Settings,
    console: Console,
    show: Callable[[DemoResults], None],
    *,
    provider: str = "auto",
    record: bool = False,
    db_name: str = "factstream_demo",
    timeout_s: float = 150.0,
    keep_topics: bool = False,
    playground: Callable[[Settings, Callable[[str], str]], None] | None = None,
) -> int:
    """The whole demo; returns the exit code (0: every episode done or skipped).

    ``playground(settings, group_of)``, when given, runs after the report while the workers
    and this run's topics are still up (it returns when the Playground stops): settings
    of the demo's database and topics, with a model provider whose embedder can embed a
    search query (the cassette holds no recording of a query: a replayed demo searches
    with the scripted demo model the cassette was recorded from)."""
    run_id = uuid.uuid4().hex[:6]
    run_dir = devinfra.dev_path(settings) / "demo" / run_id
    run = DemoRun(run_dir=run_dir, prefix=f"demo.{run_id}.", dev=settings)
    run.run_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        models = choose_models(settings, provider, record, run.run_dir)
        console.print(models.banner, style="bold")
        console.print("bringing up kafka and postgres ...", style="dim")
        up = devinfra.up(settings)
        run.infra_started = list(up.started_now)
        addr = {s.name: s.address for s in up.services}
        check_external(settings, up)
        for svc in up.services:
            how = "started by the demo" if svc.name in up.started_now else "already running"
            console.print(f"  {svc.name}: {svc.kind} ({how})")
        url, applied = asyncio.run(fresh_database(addr["postgres"], db_name, models.dim))
        console.print(f"fresh database {db_name} (migrations {applied}, dim {models.dim})")
        demo_settings = Settings(
            kafka_bootstrap_servers=addr["kafka"], database_url=url, topic_prefix=run.prefix,
            embedding_dim=models.dim, sweep_interval_s=SWEEP_INTERVAL_S,
            dev_dir=settings.dev_dir,
        )  # fmt: skip
        run.settings = demo_settings
        specs = topic_ops.all_topics(demo_settings)
        topic_ops.create_topics(demo_settings, specs)
        run.topics = [s.name for s in specs]
        console.print(f"created {len(specs)} topics under {run.prefix}")
        env = dict(os.environ) | models.env | {
            "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": addr["kafka"], "FACTSTREAM_DATABASE_URL": url,
            "FACTSTREAM_TOPIC_PREFIX": run.prefix, "FACTSTREAM_EMBEDDING_DIM": str(models.dim),
            "FACTSTREAM_SWEEP_INTERVAL_S": str(SWEEP_INTERVAL_S),
        }  # fmt: skip
        start_processes(run, env, console)
        with EPISODES.open("rb") as lines:
            published = publish_lines(demo_settings, lines)
        if published.skipped or published.failed or published.undelivered:
            raise DemoError(f"publishing the demo episodes failed: {published}")
        events = [json.loads(line) for line in EPISODES.read_text().splitlines() if line.strip()]
        wanted = {(e["dataset"], e["project_id"], e["episode_id"]) for e in events}
        console.print(
            f"published {published.published} episodes of "
            f"{len(published.per_tenant)} tenants; waiting for the pipeline ..."
        )
        asyncio.run(wait_terminal(url, demo_settings, wanted, run, timeout_s, console))
        results = asyncio.run(gather_results(url, demo_settings, wanted, group_of))
        show(results)
        ok = not results.failed
        if record and ok:
            count = save_cassette(run.run_dir / "cassette.recording.jsonl")
            console.print(f"wrote {count} cassette entries to {CASSETTE}")
        console.print(
            f"finished in {time.monotonic() - started:.0f} s. The facts stay in {db_name}:\n"
            f"  export FACTSTREAM_DATABASE_URL={shlex.quote(url)}\n"
            "  factstream facts demo alice --history; factstream trace carol-2"
        )
        if playground is not None:
            replayed = models.provider in ("replay", "record")
            search_models = DEMO_MODEL if replayed else models.provider
            playground(
                demo_settings.model_copy(update={"model_provider": search_models}),
                lambda stage: group_of(run.prefix, stage),
            )
        return 0 if ok else 1
    except (DemoError, InfraError, KafkaFailure, asyncpg.PostgresError, OSError) as exc:
        console.print(f"demo failed: {exc}", style="red")
        return 1
    finally:
        stop(run, console, keep_topics)
