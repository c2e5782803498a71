"""How big and how rough a drill is: the full `make chaos` run and the short CI run."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from streams.pipeline import STAGES

EMBEDDING_DIM = 32
MAX_RECORD_BYTES = 262_144


@dataclass(frozen=True)
class Profile:
    name: str
    tenants: int
    episodes_per_tenant: int
    partitions: int
    workers: dict[str, int]  # stage -> processes
    concurrency: int
    publish_s: float  # the chaos run publishes its input spread over this long
    kills: int  # kill -9 of stage workers, every stage at least once when kills >= 6
    kill_sweeper: bool
    restart_kafka: bool
    restart_postgres: bool
    pause_s: float  # SIGSTOP one extract worker this long (0: no pause)
    fault_rate: float
    timeout_s: float  # for each run to finish its episodes
    claim_timeout_s: float = 60.0
    sweep_interval_s: float = 4.0
    max_poll_interval_ms: int = 10_000
    session_timeout_ms: int = 8_000
    llm_timeout_s: float = 1.0
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def episodes(self) -> int:
        return self.tenants * self.episodes_per_tenant


FULL = Profile(
    name="full", tenants=100, episodes_per_tenant=5, partitions=6,
    workers={"summarize": 1, "extract": 2, "resolve": 1, "dedup": 1, "judge": 2, "write": 2},
    concurrency=16, publish_s=150.0, kills=14, kill_sweeper=True, restart_kafka=True,
    restart_postgres=True, pause_s=16.0, fault_rate=0.2, timeout_s=900.0,
)  # fmt: skip

SHORT = Profile(
    name="short", tenants=12, episodes_per_tenant=5, partitions=3,
    workers={s: 1 for s in STAGES}, concurrency=8, publish_s=20.0, kills=4,
    kill_sweeper=False, restart_kafka=False, restart_postgres=False, pause_s=0.0,
    fault_rate=0.2, timeout_s=150.0, claim_timeout_s=30.0,
)  # fmt: skip

PROFILES = {p.name: p for p in (FULL, SHORT)}


@dataclass(frozen=True)
class Action:
    at_s: float  # seconds after the chaos run starts publishing
    kind: str  # kill | kill-sweeper | pause | restart-kafka | restart-postgres
    stage: str = ""
    down_s: float = 0.0  # how long a killed process stays down / a pause lasts


def schedule(profile: Profile, rng: random.Random) -> list[Action]:
    """Random moments for the kills; the heavy faults at fixed points of the publish window."""
    span = profile.publish_s
    actions: list[Action] = []
    if profile.pause_s:
        actions.append(Action(0.2 * span, "pause", "extract", profile.pause_s))
    if profile.restart_kafka:
        actions.append(Action(0.45 * span, "restart-kafka"))
    if profile.restart_postgres:
        actions.append(Action(0.7 * span, "restart-postgres"))
    if profile.kill_sweeper:
        actions.append(Action(rng.uniform(0.3, 0.9) * span, "kill-sweeper", "sweep", 3.0))
    stages = list(STAGES)
    rng.shuffle(stages)
    victims = [stages[i % len(stages)] for i in range(profile.kills)]
    for stage in victims:
        at = rng.uniform(0.05 * span, span + 10.0)
        actions.append(Action(at, "kill", stage, rng.uniform(0.3, 4.0)))
    return sorted(actions, key=lambda a: a.at_s)
