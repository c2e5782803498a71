"""A scripted model with simulated latency, for the pipeline benchmark (bench/).

``FACTSTREAM_MODEL_PROVIDER=streams.model.fakes.bench:create_models`` makes real worker
processes use it. It lives in the package (not in bench/) so any ``factstream worker``
process can import it without the repository on ``sys.path``.

The workload is deterministic per tenant and episode number (episode ids ``ep-<k>``):
episode k says the user now works at ``org k`` (a change of job: one judge pair, verdict
``old``, and a cascade of the old employer's fact), lives in ``city k//4`` (an exact
duplicate three times out of four, a move otherwise) and has three new topic preferences
(each replacing the previous one of that topic). So every episode after the tenant's
state ``k = 0`` (:func:`history_state`, bulk-loaded by the bench) makes exactly one
summary call, one extraction, one judge call and three embedding batches.

Latency per call kind comes from ``FACTSTREAM_BENCH_LATENCY`` (``"extract=2,judge=1,
summarize=1,embed=0.15"``, seconds; default all 0) with uniform jitter of
``FACTSTREAM_BENCH_JITTER`` (a fraction, default 0.25) around it. Tokens are estimated
as one per four characters of request and response JSON (there is no real tokenizer).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel

from streams.domain.graph import RawEntity, RawGraph
from streams.model import ports
from streams.model.fakes.book import always, answer_pairs, claim
from streams.model.fakes.scripted import hashed_vector, user_turns_summary
from streams.settings import Settings

T = TypeVar("T")

TOPICS = ("coffee", "music", "travel", "reading", "fitness", "cooking", "gaming", "movie",
          "garden", "podcast", "hiking", "photo")  # fmt: skip
TOPICS_PER_EPISODE = 3
CHARS_PER_TOKEN = 4


def episode_number(episode_id: str) -> int:
    """``ep-<k>`` -> k (anything else: 1)."""
    _, _, tail = episode_id.rpartition("-")
    return int(tail) if tail.isdigit() else 1


def topics_of(k: int) -> list[str]:
    return [TOPICS[(TOPICS_PER_EPISODE * k + j) % len(TOPICS)] for j in range(TOPICS_PER_EPISODE)]


def episode_graph(k: int) -> RawGraph:
    """What "the model" extracts from a tenant's k-th episode, each claim quoting the
    user's words of :func:`episode_text` (so the quote check trusts them)."""
    org, city = f"org {k}", f"city {k // 4}"
    literals = [
        claim("user", f"has {t} preference", f"{t} option {k}", quote=_preference(t, k))
        for t in topics_of(k)
    ]
    literals.append(claim(org, "has team size of", f"{10 + k} people", quote=_team(k)))
    return RawGraph(
        entities=[RawEntity(name="user", type="PERSON"), RawEntity(name=org, type="ORG"),
                  RawEntity(name=city, type="PLACE")],
        relationships=[claim("user", "works at", org, quote=_job(k)),
                       claim("user", "lives in", city, quote=_home(k))],
        literalFacts=literals,
    )  # fmt: skip


def _job(k: int) -> str:
    return f"I started a new job at Org {k}"


def _team(k: int) -> str:
    return f"about {10 + k} people"


def _home(k: int) -> str:
    return f"Still living in City {k // 4}"


def _preference(topic: str, k: int) -> str:
    return f"my {topic} choice is now {topic} option {k}"


def episode_text(k: int) -> list[tuple[str, str]]:
    """(role, content) messages of episode k: the transcript the graph comes from."""
    prefs = ", ".join(_preference(t, k) for t in topics_of(k))
    return [
        ("user", f"Quick update: {_job(k)} this week."),
        ("assistant", "Congratulations! How is the team?"),
        ("user", f"Great, {_team(k)}. {_home(k)}."),
        ("assistant", "Nice. Anything else changed?"),
        ("user", f"Yes: {prefs}."),
        ("assistant", "Noted, thanks for sharing."),
    ]


def history_state() -> list[tuple[str, str, str, str]]:
    """(subject, predicate, object, kind) live for a tenant before its episode 1: what
    episode 0 would have left (every topic set once), loaded by the bench in bulk."""
    rows = [("user", "works at", "org 0", "relationship"),
            ("user", "lives in", "city 0", "relationship"),
            ("org 0", "has team size of", "10 people", "literal")]  # fmt: skip
    rows += [("user", f"has {t} preference", f"{t} option 0", "literal") for t in TOPICS]
    return rows


def parse_latency(text: str) -> dict[str, float]:
    """``"extract=2,judge=1"`` -> {"extract": 2.0, "judge": 1.0}."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        out[name.strip()] = float(value)
    return out


def _tokens(payload: Any) -> int:
    return max(1, len(json.dumps(payload, default=str)) // CHARS_PER_TOKEN)


class _Simulated:
    """One call kind: sleep a jittered latency, answer from ``answer``, record the call."""

    def __init__(
        self, kind: ports.CallKind, mean_s: float, jitter: float, rng: random.Random
    ) -> None:
        self.kind, self.mean_s, self.jitter, self.rng = kind, mean_s, jitter, rng

    async def call(self, request: BaseModel, answer: Callable[[], T]) -> ports.ModelResult[T]:
        started = time.perf_counter()
        if self.mean_s > 0:
            await asyncio.sleep(self.mean_s * (1 + self.jitter * (2 * self.rng.random() - 1)))
        value = answer()
        body = request.model_dump(mode="json")
        response: dict[str, Any] = (
            value.model_dump(mode="json") if isinstance(value, BaseModel)
            else {"vectors": len(value) if isinstance(value, list) else 0}
        )  # fmt: skip
        record = ports.CallRecord(
            self.kind, "bench-simulated", body, response,
            (time.perf_counter() - started) * 1000,
            input_tokens=_tokens(body), output_tokens=_tokens(response),
        )  # fmt: skip
        return ports.ModelResult(value, [record])


class BenchExtractor:
    def __init__(self, sim: _Simulated) -> None:
        self.sim = sim

    async def extract(self, request: ports.ExtractInput) -> ports.ModelResult[RawGraph]:
        k = episode_number(request.scope.episode_id)
        return await self.sim.call(request, lambda: episode_graph(k))


class BenchJudge:
    """Every pair is a change (job, city, preference): the new fact wins."""

    def __init__(self, sim: _Simulated) -> None:
        self.sim = sim

    async def judge(self, request: ports.JudgeInput) -> ports.ModelResult[ports.JudgeOutput]:
        def answer() -> ports.JudgeOutput:
            return answer_pairs(request, always("old"))

        return await self.sim.call(request, answer)


class BenchSummarizer:
    def __init__(self, sim: _Simulated) -> None:
        self.sim = sim

    async def summarize(
        self, request: ports.SummarizeInput
    ) -> ports.ModelResult[ports.SummaryOutput]:
        return await self.sim.call(request, lambda: user_turns_summary(request))


class BenchEmbedder:
    """Stable pseudo-random unit vectors (unrelated texts are nearly orthogonal)."""

    def __init__(self, sim: _Simulated, dim: int) -> None:
        self.sim, self.dim = sim, dim

    async def embed(self, request: ports.EmbedInput) -> ports.ModelResult[list[list[float]]]:
        return await self.sim.call(request, lambda: [_vector(t, self.dim) for t in request.texts])


@lru_cache(maxsize=4096)
def _cached_vector(text: str, dim: int) -> tuple[float, ...]:
    return tuple(hashed_vector(text, dim))


def _vector(text: str, dim: int) -> list[float]:
    return list(_cached_vector(text, dim))


def build(
    settings: Settings, latency: Mapping[str, float], jitter: float, seed: int
) -> ports.Models:
    rng = random.Random(seed)

    def sim(kind: ports.CallKind) -> _Simulated:
        return _Simulated(kind, latency.get(kind, 0.0), jitter, rng)

    return ports.Models(
        extractor=BenchExtractor(sim("extract")),
        judge=BenchJudge(sim("judge")),
        summarizer=BenchSummarizer(sim("summarize")),
        embedder=BenchEmbedder(sim("embed"), settings.embedding_dim),
    )


def create_models(settings: Settings, **_: Any) -> ports.Models:
    """The provider factory; latency and jitter from the environment (see module doc)."""
    latency = parse_latency(os.environ.get("FACTSTREAM_BENCH_LATENCY", ""))
    jitter = float(os.environ.get("FACTSTREAM_BENCH_JITTER", "0.25"))
    return build(settings, latency, jitter, seed=os.getpid())
