"""One run of the whole pipeline as OS processes: fresh database and topics, six stage
workers and the sweeper, the scenario and the poison corpus published, optionally the
chaos schedule played against it, then wait until everything settled and stop."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from chaos.infra import Infra
from chaos.liveness import Liveness, probe
from chaos.poison import Poison
from chaos.procs import Supervisor
from chaos.profile import EMBEDDING_DIM, MAX_RECORD_BYTES, Action, Profile
from chaos.scenario import Scenario
from chaos.setup import fresh_database, run_env
from chaos.state import dead_letter_count, terminal_episodes
from streams.kafka import topics as topic_ops
from streams.kafka.client import producer_config
from streams.kafka.publisher import Publisher
from streams.ops.lag import collect_lag
from streams.pipeline import STAGES
from streams.settings import Settings

log = logging.getLogger("chaos")


@dataclass
class RunResult:
    label: str
    settings: Settings
    database_url: str
    fault_log: Path
    actions: list[dict[str, Any]] = field(default_factory=list)
    kills: dict[str, int] = field(default_factory=dict)
    crashes: dict[str, list[int]] = field(default_factory=dict)
    finished: bool = False
    elapsed_s: float = 0.0
    stop_codes: dict[str, int | None] = field(default_factory=dict)
    liveness_kills: list[str] = field(default_factory=list)  # "process: why"


class Run:
    """Everything one run owns; ``await Run(...).execute()`` returns its RunResult."""

    def __init__(self, label: str, profile: Profile, infra: Infra, scenario: Scenario,
                 poison: list[Poison], run_dir: Path, *, chaos: list[Action] | None,
                 seed: int, say: Callable[[str], None]) -> None:  # fmt: skip
        self.label, self.profile, self.infra = label, profile, infra
        self.scenario, self.poison, self.chaos, self.seed = scenario, poison, chaos, seed
        self.dir = run_dir / label
        self.dir.mkdir(parents=True, exist_ok=True)
        self.say = say
        self.t0 = 0.0
        self.actions: list[dict[str, Any]] = []
        self.sup: Supervisor | None = None
        self.held: dict[str, float] = {}  # slot -> monotonic time it may be restarted
        self.liveness_kills: list[str] = []

    async def execute(self) -> RunResult:
        p = self.profile
        tag = f"{self.seed % 100000:05d}"
        url = await fresh_database(self.infra.server_url, f"chaos_{tag}_{self.label}")
        settings = Settings(
            kafka_bootstrap_servers=self.infra.bootstrap, database_url=url,
            topic_prefix=f"chaos{tag}{self.label}.", topic_partitions=p.partitions,
            embedding_dim=EMBEDDING_DIM, max_record_bytes=MAX_RECORD_BYTES,
            max_retries=3, claim_timeout_s=p.claim_timeout_s,
            # The drill's own clients stay quiet while the broker is away (log_level 2: crit).
            kafka_client_config={"log_level": "2"},
        )  # fmt: skip
        topic_ops.delete_topics(settings, [s.name for s in topic_ops.all_topics(settings)])
        await asyncio.to_thread(topic_ops.create_topics, settings)
        fault_log = self.dir / "model-calls.jsonl"
        fault_log.unlink(missing_ok=True)
        rate = p.fault_rate if self.chaos is not None else 0.0
        env = run_env(p, settings, url, rate, fault_log, self.seed)
        sup = self.sup = Supervisor(env, self.dir, settings.topic_prefix)
        for stage in STAGES:
            sup.add_workers(stage, p.workers.get(stage, 1), p.concurrency)
        sup.add_sweeper()
        result = RunResult(self.label, settings, url, fault_log)
        self.say(
            f"[{self.label}] database {url.rsplit('/', 1)[-1].split('?')[0]}, topics"
            f" {settings.topic_prefix}*, {len(sup.slots)} processes, fault rate {rate:.0%}"
        )
        sup.start_all()
        self.t0 = time.monotonic()
        watcher = asyncio.create_task(self._watch())
        try:
            jobs = [self._publish(settings)]
            if self.chaos:
                jobs.append(self._play(self.chaos))
            await asyncio.gather(*jobs)
            result.finished = await self._wait_finished(settings, url, p.timeout_s)
            await self._settle(settings)
        finally:
            watcher.cancel()
            # Blocking on purpose: this also runs when the drill is interrupted (Ctrl-C),
            # and no worker may outlive it.
            result.stop_codes = sup.stop_all()
        result.elapsed_s = time.monotonic() - self.t0
        result.actions = self.actions
        result.kills = {n: s.kills for n, s in sup.slots.items() if s.kills}
        result.crashes = {n: s.crashes for n, s in sup.slots.items() if s.crashes}
        result.liveness_kills = self.liveness_kills
        return result

    def _note(self, kind: str, **detail: Any) -> None:
        entry = {"t": round(time.monotonic() - self.t0, 1), "action": kind, **detail}
        self.actions.append(entry)
        with (self.dir / "actions.jsonl").open("a") as f:
            f.write(json.dumps(entry) + "\n")
        self.say(
            f"[{self.label}] t={entry['t']:6.1f}s {kind} "
            + " ".join(f"{k}={v}" for k, v in detail.items())
        )

    async def _watch(self) -> None:
        """Restart what died (after its hold time), and what fails its liveness probe:
        a scheduler's job (deploy/k8s has the same /livez liveness probe)."""
        assert self.sup is not None
        liveness, last_probe = Liveness(), 0.0
        while True:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for name, slot in self.sup.slots.items():
                if slot.alive or slot.proc is None or self.held.get(name, 0) > now:
                    continue
                crashed = not slot.expect_exit
                if crashed:
                    slot.crashes.append(slot.proc.returncode)
                    self._note("crashed", process=name, code=slot.proc.returncode)
                liveness.forget(name)
                self.sup.start(name)
                self._note("restarted", process=name)
            if now - last_probe >= 5.0:
                last_probe = now
                await self._probe(liveness)

    async def _probe(self, liveness: Liveness) -> None:
        assert self.sup is not None
        for name, slot in self.sup.slots.items():
            if slot.metrics_port is None or not slot.alive or slot.paused:
                liveness.forget(name)
                continue
            healthy, why = await asyncio.to_thread(probe, slot.metrics_port)
            if liveness.verdict(name, slot.started_at, healthy):
                self.liveness_kills.append(f"{name}: {why}")
                self.held[name] = time.monotonic() + 1.0
                self.sup.kill(name)
                slot.kills -= 1  # not one of the drill's own kills
                self._note("liveness probe failed: kill -9", process=name, why=why)

    async def _publish(self, settings: Settings) -> None:
        events = self.scenario.episodes_in_publish_order()
        span = self.profile.publish_s if self.chaos is not None else 0.0
        poison_at = {
            int(len(events) * (i + 1) / (len(self.poison) + 1)): x
            for i, x in enumerate(self.poison)
        }
        publisher = Publisher(settings)
        raw = Producer(producer_config(settings, **{"message.max.bytes": 2_000_000}))
        for i, event in enumerate(events):
            if (poison := poison_at.get(i)) is not None:
                raw.produce(settings.topic(poison.topic), key=poison.key, value=poison.value)
                raw.poll(0)
            publisher.publish(event)
            if span:
                await asyncio.sleep(span / len(events))
            elif i % 50 == 0:
                await asyncio.sleep(0)
        await asyncio.to_thread(publisher.flush, 120)
        left = await asyncio.to_thread(raw.flush, 120)
        if left:
            raise RuntimeError(f"{left} poison records not delivered")
        self._note("published", episodes=len(events), poison=len(self.poison))

    async def _play(self, actions: list[Action]) -> None:
        """Each action at its moment, concurrently (a pause or a broker restart takes a
        while; the kills scheduled meanwhile still happen on time)."""

        async def at(action: Action) -> None:
            await asyncio.sleep(max(0.0, self.t0 + action.at_s - time.monotonic()))
            await self._apply(action)

        await asyncio.gather(*(at(a) for a in actions))

    async def _running(self, stage: str, wait_s: float = 30.0) -> list[str]:
        """The stage's running processes; a kill that finds them all down (an earlier kill
        of the same stage a moment before) waits for one to come back, so that the drill
        injects as many kills as its profile says."""
        assert self.sup is not None
        deadline = time.monotonic() + wait_s
        live = self.sup.alive(stage)
        while not live and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            live = self.sup.alive(stage)
        return live

    async def _apply(self, a: Action) -> None:
        assert self.sup is not None
        if a.kind in ("kill", "kill-sweeper"):
            live = await self._running(a.stage)
            if not live:
                self._note("kill skipped", stage=a.stage, why="none running")
                return
            victim = random.Random(f"{self.seed}:{a.at_s}").choice(live)
            self.held[victim] = time.monotonic() + a.down_s
            self.sup.kill(victim)
            self._note("kill -9", process=victim, down_s=round(a.down_s, 1))
        elif a.kind == "pause":
            victim = self.sup.alive(a.stage)[0]
            self.sup.pause(victim)
            self._note("SIGSTOP", process=victim, for_s=a.down_s)
            await asyncio.sleep(a.down_s)
            self.sup.resume(victim)
            self._note("SIGCONT", process=victim)
        elif a.kind == "restart-kafka":
            self._note("kafka kill -9")
            took = await asyncio.to_thread(self.infra.restart_kafka)
            self._note("kafka back", after_s=round(took, 1))
        elif a.kind == "restart-postgres":
            self._note("postgres stop")
            took = await asyncio.to_thread(self.infra.restart_postgres)
            self._note("postgres back", after_s=round(took, 1))

    async def _wait_finished(self, settings: Settings, url: str, timeout_s: float) -> bool:
        """Every episode terminal in the ledger and every poison record dead-lettered."""
        wanted = {
            (e.dataset, e.project_id, e.episode_id)
            for t in self.scenario.tenants
            for e in t.episodes
        }
        dead_wanted = sum(len(x.stages()) for x in self.poison)
        deadline = time.monotonic() + timeout_s
        shown, moved = (-1, -1), time.monotonic()
        # Recovery takes up to a claim timeout plus sweep passes; longer without any
        # progress is a stall (a wedged worker, a partition nobody reads): stop waiting.
        stall_s = self.profile.claim_timeout_s * 3 + 60
        while time.monotonic() < deadline:
            done = await terminal_episodes(url, settings.max_retries)
            dead = await asyncio.to_thread(dead_letter_count, settings)
            state = (len(done & wanted), dead)
            if state != shown:
                self._note(
                    "progress",
                    terminal=f"{state[0]}/{len(wanted)}",
                    dead_letters=f"{dead}/{dead_wanted}",
                )
                shown, moved = state, time.monotonic()
            elif time.monotonic() - moved > stall_s:
                self._note("stalled", no_progress_for_s=round(stall_s))
                return False
            if state[0] == len(wanted) and dead >= dead_wanted:
                return True
            await asyncio.sleep(2.0)
        self._note("timed out", waited_s=timeout_s)
        return False

    async def _settle(self, settings: Settings, timeout_s: float = 60.0) -> None:
        """Let the last commits land: lag small and unchanged twice in a row."""
        groups = {s: f"{settings.topic_prefix}factstream-{s}" for s in STAGES}
        previous = None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            await asyncio.sleep(3.0)
            try:
                report = await asyncio.to_thread(
                    collect_lag,
                    settings,
                    topic_ops.admin_client(settings),
                    STAGES,
                    lambda s: groups[s],
                )
            except Exception as exc:  # the broker may still be settling after a restart
                log.warning("lag: %s", exc)
                continue
            snap = [(s.stage, p.partition, p.lag) for s in report for p in s.partitions]
            if snap == previous and all(lag <= 1 for _, _, lag in snap):
                return
            previous = snap
        self._note("lag did not settle", lag=sum(x[2] for x in previous or []))
