"""Recording any provider to a JSONL cassette and replaying it deterministically."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from streams.demo.setup import CASSETTE, CASSETTE_DIM
from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.events import Message, Role, Verdict
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
)
from streams.model.ports import (
    CallRecord,
    CallScope,
    EmbedInput,
    ExtractInput,
    JudgedPair,
    JudgeInput,
    JudgeOutput,
    JudgePair,
    ModelCallFailed,
    ModelResult,
    Models,
    SummarizeInput,
    SummaryOutput,
    reply_record,
)
from streams.model.replay import Cassette, RecordingModels, ReplayModels, replay_key

DIM = 16
SCOPE = CallScope(dataset="shop", project_id="alice", episode_id="ep-1")
AT = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
GRAPH = RawGraph(
    entities=[RawEntity(name="user", type="PERSON"), RawEntity(name="honda civic", type="VEHICLE")],
    relationships=[RawClaim(subject="user", predicate="drives", object="honda civic")],
)


def extract_input(text: str = "I drive a Honda Civic", scope: CallScope = SCOPE) -> ExtractInput:
    return ExtractInput(
        scope=scope,
        messages=[Message(seq=1, role=Role.USER, content=text, created_at=AT)],
        known_entities=["honda civic"],
        reference_time=AT,
    )


def scripted(fail_extract: bool = False) -> Models:
    def extract(req: ExtractInput) -> RawGraph:
        if fail_extract:
            raise RuntimeError("model down")
        return GRAPH

    return Models(
        extractor=ScriptedExtractor(extract),
        judge=ScriptedJudge(
            lambda r: JudgeOutput(
                verdicts=[JudgedPair(pair_id=p.pair_id, verdict=Verdict.OLD) for p in r.pairs]
            )
        ),
        summarizer=ScriptedSummarizer(lambda r: SummaryOutput(summary="The user drives a civic.")),
        embedder=ScriptedEmbedder(DIM),
    )


async def record_all(path: Path, models: Models | None = None) -> Models:
    recorder = RecordingModels(models or scripted(), Cassette(path)).as_models()
    await recorder.extractor.extract(extract_input())
    await recorder.judge.judge(
        JudgeInput(scope=SCOPE, pairs=[JudgePair(pair_id=3, candidate="a", existing="b")])
    )
    await recorder.summarizer.summarize(
        SummarizeInput(scope=SCOPE, messages=extract_input().messages)
    )
    await recorder.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="facts", texts=["user drives honda civic"])
    )
    return recorder


async def test_cassette_lines_carry_key_kind_scope_input_output(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    await record_all(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["kind"] for e in lines] == ["extract", "judge", "summarize", "embed"]
    first = lines[0]
    assert set(first) == {"key", "kind", "scope", "input", "output", "error"}
    assert first["scope"] == SCOPE.model_dump()
    assert first["input"]["messages"][0]["content"] == "I drive a Honda Civic"
    assert first["output"] == GRAPH.model_dump(mode="json") and first["error"] is None
    assert first["key"] == replay_key("extract", extract_input())


async def test_replay_answers_every_port_like_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    await record_all(path)
    replay = ReplayModels(Cassette(path), DIM).as_models()
    graph = await replay.extractor.extract(extract_input())
    verdicts = await replay.judge.judge(
        JudgeInput(scope=SCOPE, pairs=[JudgePair(pair_id=3, candidate="a", existing="b")])
    )
    summary = await replay.summarizer.summarize(
        SummarizeInput(scope=SCOPE, messages=extract_input().messages)
    )
    vectors = await replay.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="facts", texts=["user drives honda civic"])
    )
    assert graph.value == GRAPH
    assert verdicts.value.verdicts == [JudgedPair(pair_id=3, verdict=Verdict.OLD)]
    assert summary.value.summary == "The user drives a civic."
    assert vectors.value == [ScriptedEmbedder(DIM).vector("user drives honda civic")]
    assert {c.model for r in (graph, verdicts, summary, vectors) for c in r.calls} == {"replay"}
    embed_record = vectors.calls[0]
    assert embed_record.request["input"]["texts"] == ["user drives honda civic"]
    assert embed_record.request["expected_dimension"] == DIM
    assert embed_record.response == {"count": 1, "dims": [DIM]}


def test_key_depends_on_input_data_kind_and_episode_not_on_prompt_or_order() -> None:
    base = replay_key("extract", extract_input())
    # Same data built again (and key order is canonical): same key.
    assert replay_key("extract", ExtractInput.model_validate(extract_input().model_dump())) == base
    assert replay_key("extract", extract_input("I drive a Toyota")) != base
    other_episode = SCOPE.model_copy(update={"episode_id": "ep-2"})
    assert replay_key("extract", extract_input(scope=other_episode)) != base
    embed = EmbedInput(scope=SCOPE, purpose="facts", texts=["x"])
    assert replay_key("embed", embed) != replay_key(
        "embed", embed.model_copy(update={"purpose": "entities"})
    )


async def test_unrecorded_call_names_kind_tenant_episode_and_input(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    await record_all(path)
    replay = ReplayModels(Cassette(path), DIM)
    other = SCOPE.model_copy(update={"episode_id": "ep-404"})
    with pytest.raises(ModelCallFailed) as failed:
        await replay.extract(extract_input("I sold my car last week", scope=other))
    message = str(failed.value)
    for part in ("no recording", "extract", "shop:alice", "ep-404", "I sold my car last week"):
        assert part in message
    assert failed.value.calls[0].model == "replay" and failed.value.calls[0].error == message


async def test_failures_are_recorded_and_a_later_success_wins(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    broken = RecordingModels(scripted(fail_extract=True), Cassette(path))
    with pytest.raises(ModelCallFailed):
        await broken.extract(extract_input())
    entry = json.loads(path.read_text())
    assert entry["output"] is None and "model down" in entry["error"]
    with pytest.raises(ModelCallFailed, match="recorded extract call failed"):
        await ReplayModels(Cassette(path)).extract(extract_input())

    await RecordingModels(scripted(), Cassette(path)).extract(extract_input())
    # ...and a failure recorded after the success does not hide it.
    with pytest.raises(ModelCallFailed):
        await broken.extract(extract_input())
    assert (await ReplayModels(Cassette(path)).extract(extract_input())).value == GRAPH


async def test_replayed_embeddings_must_match_the_database_dimension(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    await record_all(path)
    with pytest.raises(ModelCallFailed, match="dimension"):
        await ReplayModels(Cassette(path), embedding_dim=8).embed(
            EmbedInput(scope=SCOPE, purpose="facts", texts=["user drives honda civic"])
        )


def test_missing_or_corrupt_cassette_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no cassette"):
        ReplayModels(Cassette(tmp_path / "missing.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "a"}\nnot json\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        ReplayModels(Cassette(bad))


class TextProvider:
    """A provider whose records carry the reply text, as the Gemini and OpenAI ones do."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        value = RawGraph.model_validate_json(self.text)
        record = CallRecord("extract", "m", {}, reply_record(self.text, value, "STOP"), 1.0)
        return ModelResult(value, [record])


# Key order, spacing and a field left out (confidence): as a real model may answer.
REPLY = '{"relationships": [{"object": "honda civic", "predicate": "drives",  "subject": "user"}]}'


async def test_the_reply_text_is_recorded_and_replayed_through_the_response_model(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.jsonl"
    models = scripted()
    models.extractor = TextProvider(REPLY)
    await RecordingModels(models, Cassette(path)).extract(extract_input())
    [entry] = [json.loads(line) for line in path.read_text().splitlines()]
    assert entry["response_text"] == REPLY
    assert entry["output"] == RawGraph.model_validate_json(REPLY).model_dump(mode="json")

    replayed = await ReplayModels(Cassette(path)).extract(extract_input())
    assert replayed.value == RawGraph.model_validate_json(REPLY)
    assert replayed.calls[0].response == {
        "text": REPLY,
        "parsed": replayed.value.model_dump(mode="json"),
        "finish_reason": None,
    }


async def test_a_recorded_reply_is_judged_by_todays_response_model(tmp_path: Path) -> None:
    """The text wins over ``output``: a reply the live provider would now refuse fails in
    replay too, instead of replaying the value as it was parsed back then."""
    path = tmp_path / "c.jsonl"
    entry = {
        "key": replay_key("extract", extract_input()),
        "kind": "extract",
        "scope": SCOPE.model_dump(),
        "input": {},
        "output": GRAPH.model_dump(mode="json"),
        "response_text": '["user", "likes", "tea"]',  # not an object: refused as a whole
        "error": None,
    }
    path.write_text(json.dumps(entry) + "\n")
    with pytest.raises(ModelCallFailed, match="no longer parses"):
        await ReplayModels(Cassette(path)).extract(extract_input())


async def test_the_bundled_demo_cassette_still_answers_every_recorded_call() -> None:
    """The demo's cassette predates ``response_text``: its ``output`` is replayed as is."""
    cassette = Cassette(CASSETTE)
    replay = ReplayModels(cassette, CASSETTE_DIM)
    requests: dict[str, Any] = {
        "extract": (ExtractInput, replay.extract),
        "judge": (JudgeInput, replay.judge),
        "summarize": (SummarizeInput, replay.summarize),
        "embed": (EmbedInput, replay.embed),
    }
    entries = cassette.load()
    assert {e["kind"] for e in entries.values()} == set(requests)
    for key, entry in entries.items():
        model, port = requests[entry["kind"]]
        request = model.model_validate({**entry["input"], "scope": entry["scope"]})
        assert replay_key(entry["kind"], request) == key
        result = await port(request)
        got = result.value.model_dump(mode="json") if entry["kind"] != "embed" else result.value
        assert got == entry["output"]
        assert result.calls[0].error is None
