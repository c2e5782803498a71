"""Scripted models for whole-pipeline tests: one script per tenant, routed by the request.

Many scenarios share one running pipeline (one set of workers, many tenants), so the
models the workers hold are routers: every request names its tenant and episode in
``request.scope``, and a :class:`ScriptBook` answers it from that tenant's
:class:`TenantScript` with our own scripted providers (streams/model/fakes/scripted.py).

A tenant script says, per episode, what the extractor returns (a RawGraph, or an
exception to raise), how the judge answers a pair (a function of the two texts it is
shown), and which texts embed where (a table for ScriptedEmbedder; texts not in it get
a stable hashed vector).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.model import ports
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
    user_turns_summary,
)

# (candidate text, existing text) -> "old" | "new" | "neither"; texts as the judge sees
# them: "subject predicate object", plus " (from …)"/" (until …)" when dated.
VerdictFn = Callable[[str, str], str]


@dataclass
class TenantScript:
    """What "the model" says for one tenant."""

    graphs: Mapping[str, RawGraph | Exception] = field(default_factory=dict)
    verdict: VerdictFn | None = None  # None: every pair is "neither"
    judge_error: Exception | None = None  # set: every judge call fails with it
    vectors: dict[str, list[float]] = field(default_factory=dict)
    # Returns the error an embedding request fails with, or None (checked per call).
    embed_fail: Callable[[ports.EmbedInput], Exception | None] | None = None
    # episode id -> how many of its extraction calls fail (then it answers its graph)
    extract_failures: dict[str, int] = field(default_factory=dict)


class ScriptBook:
    """Tenant scripts, and Models whose every call is answered from them."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._scripts: dict[tuple[str, str], TenantScript] = {}
        self._embedders: dict[tuple[str, str], ScriptedEmbedder] = {}

    def add(self, dataset: str, project_id: str, script: TenantScript) -> TenantScript:
        key = (dataset, project_id)
        self._scripts[key] = script

        def fail(request: ports.EmbedInput) -> Exception | None:
            return None if script.embed_fail is None else script.embed_fail(request)

        self._embedders[key] = ScriptedEmbedder(self.dim, table=script.vectors, fail=fail)
        return script

    def script(self, scope: ports.CallScope) -> TenantScript:
        try:
            return self._scripts[(scope.dataset, scope.project_id)]
        except KeyError:
            raise LookupError(f"no script for tenant {scope.dataset}:{scope.project_id}") from None

    def models(self) -> ports.Models:
        return ports.Models(
            extractor=ScriptedExtractor(self._extract),
            judge=ScriptedJudge(self._judge),
            summarizer=ScriptedSummarizer(self._summarize),
            embedder=_RoutedEmbedder(self),
        )

    def embedder(self, scope: ports.CallScope) -> ScriptedEmbedder:
        self.script(scope)
        return self._embedders[(scope.dataset, scope.project_id)]

    def _extract(self, request: ports.ExtractInput) -> RawGraph:
        script, episode_id = self.script(request.scope), request.scope.episode_id
        if script.extract_failures.get(episode_id, 0) > 0:
            script.extract_failures[episode_id] -= 1
            raise RuntimeError(f"scripted extraction failure of {episode_id} (503)")
        answer = script.graphs.get(episode_id)
        if answer is None:
            raise LookupError(f"no scripted graph for episode {request.scope.episode_id}")
        if isinstance(answer, Exception):
            raise answer
        return quoting_the_user(answer, request)

    def _judge(self, request: ports.JudgeInput) -> ports.JudgeOutput:
        script = self.script(request.scope)
        if script.judge_error is not None:
            raise script.judge_error
        decide = script.verdict or (lambda _c, _e: "neither")
        return answer_pairs(request, decide)

    def _summarize(self, request: ports.SummarizeInput) -> ports.SummaryOutput:
        return user_turns_summary(request)


class _RoutedEmbedder:
    def __init__(self, book: ScriptBook) -> None:
        self.book = book

    async def embed(self, request: ports.EmbedInput) -> ports.ModelResult[list[list[float]]]:
        return await self.book.embedder(request.scope).embed(request)


# --- builders ------------------------------------------------------------------------------

# A scripted claim's quote when none is given: the scripted model copies the last user
# message of the window, as a faithful model copies the user's words.
QUOTE_THE_USER = "<the last user message>"


def quoting_the_user(answer: RawGraph, request: ports.ExtractInput) -> RawGraph:
    """``answer`` with every QUOTE_THE_USER quote replaced by the user's own words."""
    said = [m.content for m in request.messages if m.role.value == "user"]
    words = said[-1][:200] if said else ""

    def quoted(claims: list[RawClaim]) -> list[RawClaim]:
        return [
            c.model_copy(update={"sourceQuote": words}) if c.sourceQuote == QUOTE_THE_USER else c
            for c in claims
        ]

    return answer.model_copy(
        update={
            "relationships": quoted(answer.relationships),
            "literalFacts": quoted(answer.literalFacts),
        }
    )


def claim(
    subject: str, predicate: str, obj: str, *, conf: float | None = 0.9,
    since: str | None = None, until: str | None = None, quote: str = QUOTE_THE_USER,
) -> RawClaim:  # fmt: skip
    return RawClaim(
        subject=subject, predicate=predicate, object=obj, confidence=conf,
        sourceQuote=quote, validFrom=since, validUntil=until,
    )  # fmt: skip


def graph(entities: Mapping[str, str], *claims: RawClaim) -> RawGraph:
    """Claims whose object is a listed entity go in relationships[], the rest in
    literalFacts[] (the guards decide edge or attribute again anyway)."""
    names = {n.lower() for n in entities}
    return RawGraph(
        entities=[RawEntity(name=n, type=t) for n, t in entities.items()],
        relationships=[c for c in claims if c.object.lower() in names],
        literalFacts=[c for c in claims if c.object.lower() not in names],
    )


def sentence(text: str) -> str:
    """The judge's text of a fact without its dates: "user works at acme (from …)" -> "user
    works at acme"."""
    return text.split(" (", 1)[0]


def verdicts(table: Mapping[tuple[str, str], str], default: str = "neither") -> VerdictFn:
    """Answers by (candidate sentence, existing sentence); anything else gets ``default``."""
    return lambda cand, existing: table.get((sentence(cand), sentence(existing)), default)


def always(verdict: str) -> VerdictFn:
    return lambda _cand, _existing: verdict


def answer_pairs(request: ports.JudgeInput, decide: VerdictFn) -> ports.JudgeOutput:
    """One verdict per pair of the request, ``decide(candidate text, existing text)``."""
    return ports.JudgeOutput.model_validate(
        {
            "verdicts": [
                {"pair_id": p.pair_id, "verdict": decide(p.candidate, p.existing)}
                for p in request.pairs
            ]
        }
    )
