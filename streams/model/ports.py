"""Task-level ports to the models: extract, judge, summarize, embed.

Stages depend on these Protocols only. Providers (Gemini, record/replay, scripted fakes
for tests, or a user's own `package.module:factory`) implement them. Every call returns
its value together with the CallRecords of what was sent and received, so the stage can
store them in `llm_calls` (the seed's Playground); a call that fails for good raises
ModelError carrying its records.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from streams.domain.graph import RawGraph
from streams.domain.lenient import ItemByItem
from streams.errors import ModelError
from streams.events import Message, Verdict

T = TypeVar("T")

CallKind = Literal["extract", "judge", "summarize", "embed"]


@dataclass
class CallRecord:
    """One model request and its response, as stored in llm_calls (the Playground).

    ``request`` is what was sent: the model, the full prompt and the call's settings with
    the full response schema as it went on the wire. For extract, judge and summarize,
    ``response`` is :func:`reply_record`: the reply text exactly as received beside the
    value parsed from it. For embed, ``request`` holds the texts and the dimension asked
    for and ``response`` the count and dimensions of the vectors that came back.
    """

    kind: CallKind
    model: str
    request: dict[str, Any]
    response: dict[str, Any] | None
    latency_ms: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    attempts: int = 1
    error: str | None = None


def reply_record(
    text: str | None, parsed: BaseModel | None, finish_reason: str | None = None, **more: Any
) -> dict[str, Any]:
    """The ``response`` of an LLM call's record: the text as received, the value parsed
    from it (None when it did not parse) and why generation stopped; ``more`` adds
    provider details (a refusal)."""
    return {
        "text": text,
        "parsed": None if parsed is None else parsed.model_dump(mode="json"),
        "finish_reason": finish_reason,
        **more,
    }


@dataclass
class ModelResult(Generic[T]):
    value: T
    calls: list[CallRecord] = field(default_factory=list)


class ModelCallFailed(ModelError):
    """A model call failed after its retries; `calls` holds what was tried."""

    def __init__(self, message: str, calls: list[CallRecord], *, outage: bool = False) -> None:
        super().__init__(message)
        self.calls = calls
        self.outage = outage


# --- inputs ----------------------------------------------------------------------------


class CallScope(BaseModel):
    """Which tenant and episode a call is for: part of replay keys and of the trace."""

    dataset: str
    project_id: str
    episode_id: str


class ExtractInput(BaseModel):
    scope: CallScope
    messages: list[Message]
    known_entities: list[str] = Field(default_factory=list)
    recent_facts: list[str] = Field(default_factory=list)
    reference_time: datetime | None = None


class JudgePair(BaseModel):
    """One candidate against one live fact it may conflict with."""

    pair_id: int
    candidate: str  # "subject predicate object", plus validity if any
    existing: str
    candidate_said_at: datetime | None = None  # when the user said each (event time)
    existing_said_at: datetime | None = None


class JudgeInput(BaseModel):
    scope: CallScope
    pairs: list[JudgePair]
    # "Now", for telling past from future dates. Not part of a replay key: it is the clock.
    reference_time: datetime | None = None


class SummarizeInput(BaseModel):
    scope: CallScope
    messages: list[Message]


class EmbedInput(BaseModel):
    scope: CallScope
    purpose: Literal["summary", "entities", "facts"]
    texts: list[str]


# --- outputs (what the model returns, schema-constrained) -------------------------------


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):  # JSON true is not pair 1
        raise ValueError("a pair id is a number, not true or false")
    return value


def _verdict_word(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class JudgedPair(BaseModel):
    pair_id: Annotated[int, BeforeValidator(_not_a_bool)]
    verdict: Annotated[Verdict, BeforeValidator(_verdict_word)]


class JudgeOutput(ItemByItem):
    """One verdict per pair; a broken verdict is set aside (its pair counts as neither)."""

    model_config = ConfigDict(json_schema_extra=lambda schema: schema.update(required=["verdicts"]))
    item_models: ClassVar[dict[str, type[BaseModel]]] = {"verdicts": JudgedPair}

    verdicts: list[JudgedPair] = Field(default_factory=list)

    def by_pair(self, known: Collection[int]) -> dict[int, Verdict]:
        """The verdict for each of the ``known`` pairs the model answered. A pair given
        two different verdicts has none (it counts as neither): the model did not decide."""
        said: dict[int, set[Verdict]] = {}
        for judged in self.verdicts:
            if judged.pair_id in known:
                said.setdefault(judged.pair_id, set()).add(judged.verdict)
        return {pair: verdicts.pop() for pair, verdicts in said.items() if len(verdicts) == 1}


class SummaryOutput(BaseModel):
    summary: str


# --- ports -----------------------------------------------------------------------------


class Extractor(Protocol):
    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]: ...


class Judge(Protocol):
    async def judge(self, request: JudgeInput) -> ModelResult[JudgeOutput]: ...


class Summarizer(Protocol):
    async def summarize(self, request: SummarizeInput) -> ModelResult[SummaryOutput]: ...


class Embedder(Protocol):
    """One call embeds the whole batch; vectors have the database's dimension."""

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]: ...


@dataclass
class Models:
    """The four ports a pipeline needs, built once at the entry point."""

    extractor: Extractor
    judge: Judge
    summarizer: Summarizer
    embedder: Embedder
