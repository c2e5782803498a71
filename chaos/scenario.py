"""The drill's input: many tenants, a few episodes each, with moves, job changes, cars
bought and sold, preferences, near-duplicates, empty windows and injection attempts.

Deterministic for a seed. Each tenant's first episode names a pet after the tenant's
canary (``canary-<project>-<hex>``), a string no other tenant has: the isolation check
looks for it in other tenants' rows.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from streams.events import EpisodeCompleted, Message, Role, Window
from streams.model.fakes.drill import say

ORGS = (
    "acme corp",
    "globex",
    "initech",
    "umbrella labs",
    "hooli",
    "vandelay industries",
    "stark industries",
    "wayne enterprises",
    "tyrell corp",
    "cyberdyne",
)
PLACES = (
    "chennai",
    "bangalore",
    "berlin",
    "lisbon",
    "toronto",
    "osaka",
    "nairobi",
    "lima",
    "oslo",
    "quito",
)
TITLES = ("data engineer", "product manager", "nurse", "teacher", "chef", "pilot", "architect")
CARS = ("honda civic", "toyota corolla", "ford focus", "tesla model 3", "vw golf")
LIKES = ("jazz", "hiking", "sushi", "chess", "tennis", "gardening", "opera", "climbing")
INJECTED = (("dave", "paris"), ("mallory", "atlantis"))
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass
class TenantPlan:
    dataset: str
    project_id: str
    canary: str
    episodes: list[EpisodeCompleted] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.dataset}:{self.project_id}"


@dataclass
class Scenario:
    tenants: list[TenantPlan]

    def episodes_in_publish_order(self) -> list[EpisodeCompleted]:
        """Round-robin over tenants: every tenant's episodes stay in their order."""
        out: list[EpisodeCompleted] = []
        depth = max(len(t.episodes) for t in self.tenants)
        for i in range(depth):
            out += [t.episodes[i] for t in self.tenants if i < len(t.episodes)]
        return out

    @property
    def canaries(self) -> dict[str, str]:
        return {t.key: t.canary for t in self.tenants}


def _date(rng: random.Random, month_lo: int, month_hi: int) -> str:
    return f"2026-{rng.randint(month_lo, month_hi):02d}-{rng.randint(1, 28):02d}"


def _episode_sentences(rng: random.Random, n: int, canary: str) -> list[list[str]]:
    """What the user says in each of ``n`` episodes (an empty list: an empty window)."""
    org, place, title = rng.choice(ORGS), rng.choice(PLACES), rng.choice(TITLES)
    car, like = rng.choice(CARS), rng.choice(LIKES)
    first = [
        say("work", org=org),
        say("live", place=place),
        say("title", title=title),
        say("pet", canary=canary),
    ]
    if rng.random() < 0.5:
        first.append(say("like", thing=like))
    pool: list[list[str]] = [
        [say("move", place=rng.choice([p for p in PLACES if p != place]))],
        [
            say("start", org=rng.choice([o for o in ORGS if o != org]), date=_date(rng, 2, 4)),
            say("title", title=rng.choice([t for t in TITLES if t != title])),
        ],
        [say("drive", car=car), say("miles", car=car, n=str(rng.randint(1, 99) * 1000))],
        [
            say("like", thing=(other := rng.choice([x for x in LIKES if x != like]))),
            say("prefer", thing=other),
        ],
        [say("work", org=org.upper())],  # the same job again: an exact duplicate
    ]
    rng.shuffle(pool)
    episodes = [first, *pool[: max(0, n - 1)]]
    drives = [i for i, ep in enumerate(episodes) if say("drive", car=car) in ep]
    if drives and drives[0] < len(episodes) - 1:
        # Selling the car closes `drives` and, by cascade, the mileage fact.
        episodes[-1] = episodes[-1] + [say("sold", car=car, date=_date(rng, 5, 6))]
    if n >= 4 and rng.random() < 0.15:
        episodes[rng.randrange(1, n)] = []  # no messages in the window: skipped
    if rng.random() < 0.3:
        name, where = rng.choice(INJECTED)
        k = rng.randrange(len(episodes))
        episodes[k] = episodes[k] + [say("inject", name=name, place=where)]
    return episodes


def build(seed: int, tenants: int, episodes_per_tenant: int, dataset: str) -> Scenario:
    plans: list[TenantPlan] = []
    for t in range(tenants):
        rng = random.Random(f"{seed}:{t}")
        project = f"p{t:03d}"
        tag = hashlib.sha256(f"{seed}:{dataset}:{t}".encode()).hexdigest()[:8]
        plan = TenantPlan(dataset, project, canary=f"canary-{project}-{tag}")
        seq = 0
        for e, sentences in enumerate(_episode_sentences(rng, episodes_per_tenant, plan.canary)):
            at = EPOCH + timedelta(days=7 * e, minutes=t)
            messages: list[Message] = []
            for text in sentences:
                messages.append(Message(seq=seq, role=Role.USER, content=text, created_at=at))
                messages.append(
                    Message(seq=seq + 1, role=Role.ASSISTANT, content="Noted.", created_at=at)
                )
                seq += 2
            start = seq if not messages else messages[0].seq
            plan.episodes.append(EpisodeCompleted(
                event_id=f"ev-{project}-{e}-{tag}",
                dataset=dataset, project_id=project, episode_id=f"{project}-e{e}",
                session_id=f"s-{project}",
                window=Window(from_seq=start, to_seq=max(start, seq - 1)),
                messages=messages, completed_at=at + timedelta(minutes=30),
            ))  # fmt: skip
        plans.append(plan)
    return Scenario(plans)
