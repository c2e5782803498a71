import json
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from streams.errors import PoisonError, TransientError
from streams.events import EpisodeCompleted
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import error_headers
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import Record
from streams.runtime.stage import RecordContext, Routed, Stage


class In(BaseModel):
    dataset: str
    n: int
    fail_times: int = 0
    poison: bool = False


class Out(BaseModel):
    dataset: str
    n: int
    attempt: int


class FakeStage(Stage[Any]):
    name = "fake"
    input_topic = "in"
    input_model = In
    output_topic: str | None = "out"

    async def handle(self, event: In, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        if ctx.attempt <= event.fail_times:
            raise TransientError("try later")
        if event.poison:
            raise PoisonError("bad record")
        out = Out(dataset=event.dataset, n=event.n, attempt=ctx.attempt)
        return [out, Routed("side", out), Routed("side", out, key="explicit")]


class KeyedStage(FakeStage):
    def key_of(self, event: BaseModel) -> str | None:
        return f"by-{getattr(event, 'dataset', '?')}"


def make(stage: FakeStage, **cfg: object) -> tuple[RecordProcessor, WorkerMetrics, list[float]]:
    sleeps: list[float] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    # No time budget here: these tests count attempts (test_retry_budget.py covers time).
    conf = WorkerConfig(
        stage="fake",
        group="g",
        dlq_topic="dlq",
        transient_max_attempts=4,
        transient_min_retry_s=0.0,
        retry_base_s=1.0,
        retry_max_s=3.0,
    ).with_(**cfg)
    metrics = WorkerMetrics("fake")
    return RecordProcessor(stage, conf, metrics, sleep=sleep, rand=lambda: 1.0), metrics, sleeps


def rec(value: object, key: bytes | None = b"ds:p") -> Record:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return Record("in", 1, 7, key, raw)


async def test_outputs_are_keyed_by_the_record_key_unless_told_otherwise() -> None:
    proc, metrics, _ = make(FakeStage())
    outs = await proc(rec({"dataset": "ds", "n": 1}))
    assert [(o.topic, o.key) for o in outs] == [
        ("out", b"ds:p"),
        ("side", b"ds:p"),
        ("side", b"explicit"),
    ]
    assert json.loads(outs[0].value) == {"dataset": "ds", "n": 1, "attempt": 1}
    assert metrics.value("factstream_records_total", outcome="ok") == 1

    proc, _, _ = make(KeyedStage())
    outs = await proc(rec({"dataset": "ds", "n": 1}))
    assert [o.key for o in outs] == [b"by-ds", b"by-ds", b"explicit"]


async def test_transient_errors_retry_with_capped_full_jitter_then_succeed() -> None:
    proc, metrics, sleeps = make(FakeStage())
    outs = await proc(rec({"dataset": "ds", "n": 1, "fail_times": 3}))
    assert json.loads(outs[0].value)["attempt"] == 4
    assert sleeps == [1.0, 2.0, 3.0]  # base * 2**(n-1), capped at retry_max_s
    assert metrics.value("factstream_retries_total") == 3
    assert metrics.value("factstream_records_total", outcome="retried") == 1


async def test_transient_errors_past_the_attempt_limit_are_dead_lettered_with_the_count() -> None:
    proc, metrics, sleeps = make(FakeStage())
    (dl,) = await proc(rec({"dataset": "ds", "n": 1, "fail_times": 99}))
    h = error_headers(dl.headers)
    assert dl.topic == "dlq" and h["x-attempt"] == "4" and h["x-reason"] == "transient_exhausted"
    assert len(sleeps) == 3
    assert metrics.value("factstream_dead_letters_total", reason="transient_exhausted") == 1


@pytest.mark.parametrize(
    ("value", "reason", "attempt"),
    [
        (b"\xff", "not_utf8", "0"),
        (b"{", "bad_json", "0"),
        ({"dataset": "ds"}, "invalid_schema", "0"),
        ({"dataset": "ds", "n": 1, "poison": True}, "poison", "1"),
    ],
)
async def test_poison_goes_to_the_dlq_at_once(value: object, reason: str, attempt: str) -> None:
    proc, metrics, sleeps = make(FakeStage())
    r = rec(value)
    (dl,) = await proc(r)
    h = error_headers(dl.headers)
    assert (h["x-reason"], h["x-attempt"]) == (reason, attempt)
    assert dl.value == r.value and dl.key == r.key and not sleeps
    assert metrics.value("factstream_records_total", outcome="dead_lettered") == 1


async def test_oversized_input_and_output_are_poison() -> None:
    proc, _, _ = make(FakeStage(), max_record_bytes=60)
    (dl,) = await proc(rec({"dataset": "ds" * 40, "n": 1}))
    assert error_headers(dl.headers)["x-reason"] == "oversized"
    (dl,) = await proc(rec({"dataset": "d" * 30, "n": 1}))
    assert error_headers(dl.headers)["x-reason"] == "output_too_large"


async def test_a_sink_returning_a_bare_model_is_a_handler_error() -> None:
    stage = FakeStage()
    stage.output_topic = None
    proc, _, _ = make(stage)
    (dl,) = await proc(rec({"dataset": "ds", "n": 1}))
    assert error_headers(dl.headers)["x-reason"] == "handler_error"


class HookedStage(FakeStage):
    """A stage with an on_dead_letter hook (streams/stages/release.py's shape)."""

    def __init__(self, hook_fails: bool = False) -> None:
        self.hook_fails = hook_fails
        self.seen: list[tuple[int, str, str, tuple[tuple[str, bytes], ...]]] = []

    async def on_dead_letter(
        self, event: In, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[Routed]:
        self.seen.append((event.n, reason, error, ctx.headers))
        if self.hook_fails:
            raise RuntimeError("ledger unreachable")
        note = Out(dataset=event.dataset, n=event.n, attempt=ctx.attempt)
        return [Routed("notes", note, headers=(("why", reason.encode()),))]


async def test_a_dead_letter_carries_what_the_stage_hook_returns_with_its_headers() -> None:
    stage = HookedStage()
    proc, _, _ = make(stage)
    r = Record("in", 1, 7, b"ds:p", b'{"dataset": "ds", "n": 3, "poison": true}', (("h", b"v"),))
    dl, note = await proc(r)
    assert dl.topic == "dlq" and (note.topic, note.key) == ("notes", b"ds:p")
    assert note.headers == (("why", b"poison"),)
    assert stage.seen == [(3, "poison", "PoisonError: bad record", (("h", b"v"),))]


async def test_a_failing_hook_or_an_undecodable_record_still_just_dead_letters() -> None:
    stage = HookedStage(hook_fails=True)
    proc, _, _ = make(stage)
    (dl,) = await proc(rec({"dataset": "ds", "n": 1, "poison": True}))
    assert error_headers(dl.headers)["x-reason"] == "poison"
    (dl,) = await proc(rec(b"{"))  # no event to hand the hook
    assert error_headers(dl.headers)["x-reason"] == "bad_json" and len(stage.seen) == 1


class TenantStage(FakeStage):
    """A stage over tenant events: the runtime compares keys with their tenant."""

    input_model = EpisodeCompleted
    delivery_headers = ("release",)

    def __init__(self) -> None:
        self.dead: list[str] = []

    async def handle(self, event: Any, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        return [event]

    async def on_dead_letter(
        self, event: Any, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[BaseModel | Routed]:
        self.dead.append(reason)
        return []


def an_episode(dataset: str = "ds", project: str = "p") -> dict[str, Any]:
    return {
        "event_id": "e1", "dataset": dataset, "project_id": project, "episode_id": "ep",
        "session_id": "s", "window": {"from_seq": 0, "to_seq": 0}, "messages": [],
        "completed_at": "2026-01-01T00:00:00Z",
    }  # fmt: skip


async def test_a_key_that_is_not_the_payloads_tenant_is_dead_lettered() -> None:
    stage = TenantStage()
    proc, _, _ = make(stage)
    (dead,) = await proc(rec(an_episode("other"), key=b"ds:p"))
    h = error_headers(dead.headers)
    assert dead.topic == "dlq" and h["x-reason"] == "key_mismatch"
    assert "'ds:p' is not the payload's tenant 'other:p'" in h["x-exception-message"]
    assert stage.dead == ["key_mismatch"]  # the stage may still release what it held


async def test_a_record_without_a_key_is_dead_lettered_as_no_key() -> None:
    # A producer puts a keyless record on any partition: out of its tenant's order.
    stage = TenantStage()
    proc, metrics, _ = make(stage)
    (dead,) = await proc(rec(an_episode(), key=None))
    h = error_headers(dead.headers)
    assert (dead.topic, dead.key, h["x-reason"], h["x-attempt"]) == ("dlq", None, "no_key", "0")
    assert h["x-exception-message"] == (
        "record has no key; the key must be the tenant '<dataset>:<project_id>', here 'ds:p'"
    )
    assert dead.value == json.dumps(an_episode()).encode()  # the original, untouched
    assert stage.dead == ["no_key"]
    assert metrics.value("factstream_dead_letters_total", reason="no_key") == 1


async def test_a_binary_key_is_told_with_escapes_in_the_letter_and_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    proc, _, _ = make(TenantStage())
    with caplog.at_level("ERROR", logger="streams.runtime.processor"):
        (dead,) = await proc(rec(an_episode(), key=b"ds:\xff\xfep"))
    message = error_headers(dead.headers)["x-exception-message"]
    assert message == "record key 'ds:\\xff\\xfep' is not the payload's tenant 'ds:p'"
    (line,) = [r for r in caplog.records if r.getMessage().startswith("dead-lettered")]
    assert line.tenant == "ds:\\xff\\xfep"  # type: ignore[attr-defined]
    assert "\ufffd" not in line.getMessage() and "ds:\\xff\\xfep" in line.getMessage()


async def test_a_dead_letter_drops_the_stages_delivery_headers() -> None:
    proc, _, _ = make(TenantStage())
    record = Record("in", 1, 7, b"ds:p", b"{broken", (("release", b"tok"), ("trace", b"t")))
    (dead,) = await proc(record)
    assert "release" not in dict(dead.headers) and dict(dead.headers)["trace"] == b"t"


async def test_a_huge_key_is_cut_in_the_log_and_kept_whole_in_the_letter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = b"K" * 900_000
    proc, _, _ = make(TenantStage())
    with caplog.at_level("ERROR", logger="streams.runtime.processor"):
        (dead,) = await proc(rec(an_episode(), key=key))
    assert dead.key == key  # the letter holds the original
    (line,) = [r for r in caplog.records if r.getMessage().startswith("dead-lettered")]
    assert line.tenant == "K" * 200 + "..."  # type: ignore[attr-defined]
    assert len(line.getMessage()) < 400
