"""Reading a model's answer text: junk costs its own entry, not the answer."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from streams.domain.confidence import read_confidence
from streams.domain.graph import RawGraph
from streams.domain.json_salvage import cut_deep
from streams.domain.lenient import read_reply
from streams.model.ports import JudgeOutput


def names(text: str) -> list[str]:
    return [e.name for e in read_reply(RawGraph, text).entities]


def entity_json(name_json: str) -> str:
    return f'{{"entities": [{{"name": {name_json}, "type": "ORG"}}]}}'


@pytest.mark.parametrize(
    ("name_json", "read"),
    [
        ('"ac\\ud800me"', "ac\ufffdme"),  # an unpaired high surrogate escape
        ('"ac\\udc00me"', "ac\ufffdme"),  # an unpaired low one
        ('"ac\ud800me"', "ac\ufffdme"),  # a raw unpaired surrogate in the text
        ('"\\ud83d\\ude00 smile \\ud800"', "\U0001f600 smile \ufffd"),  # a pair is one character
        ('"back\\\\ud800slash \\ud800"', "back\\ud800slash \ufffd"),  # an escaped backslash is text
    ],
)
def test_an_unpaired_surrogate_is_read_as_the_replacement_character(
    name_json: str, read: str
) -> None:
    assert names(entity_json(name_json)) == [read]


@pytest.mark.parametrize("depth", [400, 100_000])  # past pydantic's limit, and Python's
def test_junk_nested_deep_in_one_entry_costs_only_that_entry(depth: int) -> None:
    deep = "{" + '"a": {' * depth + "}" * depth + "}"
    text = (
        f'{{"entities": [{{"name": {deep}, "type": "ORG"}}, {{"name": "acme", "type": "ORG"}}],'
        ' "relationships": [], "literalFacts": []}'
    )
    graph = read_reply(RawGraph, text)
    assert [e.name for e in graph.entities] == ["acme"]
    assert graph.rejected == ["entities[0]: name: Input should be a valid string"]


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"entities": [',  # truncated
        '["user", "likes", "tea"]',  # not an object
        '{"entities": [' + "[" * 100_000,  # truncated, deep
    ],
)
def test_an_answer_that_is_not_a_json_object_still_fails_as_a_whole(text: str) -> None:
    with pytest.raises(ValidationError):
        read_reply(RawGraph, text)


def test_the_judges_answer_is_read_the_same_way() -> None:
    output = read_reply(
        JudgeOutput, '{"verdicts": [{"pair_id": 1, "verdict": "old", "why": "\\ud800"}]}'
    )
    assert [(v.pair_id, v.verdict.value) for v in output.verdicts] == [(1, "old")]


def test_cut_deep_leaves_strings_and_shallow_json_alone() -> None:
    assert cut_deep("[[[1]], [[2, [3]]]]", 2) == "[[null], [null]]"
    assert cut_deep('{"a": "x\\"[[[", "b": [[[]]]}', 2) == '{"a": "x\\"[[[", "b": [null]}'
    shallow = '{"entities": [{"name": "acme"}]}'
    assert cut_deep(shallow, 64) is shallow


CLEAN = (
    '{"entities": [{"name": "acme", "type": "ORG"}, {"name": "tea", "type": "THING"}],'
    ' "relationships": [{"subject": "user", "predicate": "works_at", "object": "acme",'
    ' "confidence": 0.9, "sourceQuote": "I work at acme"}], "literalFacts": []}'
)


def test_the_clean_answer_reads_as_expected() -> None:
    graph = read_reply(RawGraph, CLEAN)
    assert [e.name for e in graph.entities] == ["acme", "tea"]
    assert [(c.predicate, c.object) for c in graph.relationships] == [("works_at", "acme")]
    assert graph.rejected == []


@pytest.mark.parametrize(
    "text",
    [
        # a byte-order mark, whitespace around
        "\ufeff" + CLEAN,
        "\ufeff \n\t" + CLEAN + " \n\n",
        "\n\n  " + CLEAN + "\r\n",
        # a markdown code fence, prose before it
        "```json\n" + CLEAN + "\n```",
        "```\n" + CLEAN + "\n```\n",
        "Here is the JSON:\n```json\n" + CLEAN + "\n```",
        "Here is the {graph} [as asked]:\n\n```JSON\n" + CLEAN + "\n```\nDone.",
        # prose before or after the JSON
        CLEAN + "\n\nLet me know if you need more.",
        "Sure! Here it is: " + CLEAN + "\nAnything {else}?",
        "[Note] extracted from the chat: " + CLEAN,
        CLEAN + '\n\nIn Python:\n```py\nx = {"entities": []}\n```',
    ],
)
def test_what_surrounds_the_json_of_an_answer_is_ignored(text: str) -> None:
    assert read_reply(RawGraph, text) == read_reply(RawGraph, CLEAN)


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_too_long_for_python_costs_only_its_entry(sign: str) -> None:
    huge = sign + "9" * 5000  # past Python's 4300-digit int-string limit
    output = read_reply(
        JudgeOutput,
        f'{{"verdicts": [{{"pair_id": {huge}, "verdict": "old"}},'
        ' {"pair_id": 2, "verdict": "new"}]}',
    )
    assert [(v.pair_id, v.verdict.value) for v in output.verdicts] == [(2, "new")]
    assert output.rejected == ["verdicts[0]: pair_id: Input should be a finite number"]


def test_an_integer_too_long_as_a_confidence_leaves_the_claim_untrusted() -> None:
    text = CLEAN.replace('"confidence": 0.9', '"confidence": ' + "1" * 5000)
    graph = read_reply(RawGraph, text)
    assert [e.name for e in graph.entities] == ["acme", "tea"]
    [claim] = graph.relationships
    assert claim.object == "acme"
    assert read_confidence(claim.confidence)[0] == 0.0
    assert read_confidence(claim.confidence)[1] is not None


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff",
        "```json\nnot json\n```",
        "Sorry, I found nothing {relevant} to extract.",
        '```json\n{"entities": [\n```',  # truncated inside the fence
        'Here: [{"entities": []}, {"entities": []}]',  # a list of objects, not one
        "\ufeff" + '["user", "likes", "tea"]',
    ],
)
def test_a_wrapped_answer_with_no_json_object_still_fails_as_a_whole(text: str) -> None:
    with pytest.raises(ValidationError):
        read_reply(RawGraph, text)


@pytest.mark.parametrize("key", ["result", "graph", "response", "data"])
def test_an_answer_wrapped_in_one_key_is_read_from_inside(key: str) -> None:
    wrapped = json.dumps({key: json.loads(CLEAN)})
    assert read_reply(RawGraph, wrapped) == read_reply(RawGraph, CLEAN)


def test_an_answer_with_unknown_keys_of_its_own_is_not_unwrapped() -> None:
    assert read_reply(RawGraph, '{"note": "nothing here"}') == RawGraph()
    assert read_reply(RawGraph, '{"a": {"entities": []}, "b": 1}') == RawGraph()


def test_an_answer_of_one_object_in_an_array_is_read_from_inside() -> None:
    assert read_reply(RawGraph, f"[{CLEAN}]") == read_reply(RawGraph, CLEAN)
    with pytest.raises(ValidationError):
        read_reply(RawGraph, f"[{CLEAN}, {CLEAN}]")  # which one? neither is guessed


def test_a_null_quote_keeps_the_claim_as_a_missing_quote_does() -> None:
    text = CLEAN.replace('"I work at acme"', "null")
    [claim] = read_reply(RawGraph, text).relationships
    assert (claim.object, claim.sourceQuote) == ("acme", "")


def test_an_answer_split_into_several_objects_keeps_every_part() -> None:
    entities = '{"entities": [{"name": "user", "type": "PERSON"}, {"name": "acme", "type": "ORG"}]}'
    claim = ('{"subject": "user", "predicate": "works_at", "object": "acme",'
             ' "confidence": 0.9, "sourceQuote": "I work at acme"}')  # fmt: skip
    facts = f'{{"relationships": [{claim}]}}'
    for text in (f"{entities}\n{facts}", f"Entities:\n{entities}\n\nFacts:\n```json\n{facts}\n```"):
        graph = read_reply(RawGraph, text)
        assert [e.name for e in graph.entities] == ["user", "acme"]
        assert [(c.predicate, c.object) for c in graph.relationships] == [("works_at", "acme")]
        assert graph.rejected == []


def test_a_later_object_that_adds_nothing_to_the_answer_is_said_so() -> None:
    graph = read_reply(RawGraph, CLEAN + '\n{"summary": "the user works at acme"}')
    assert graph.model_dump() == read_reply(RawGraph, CLEAN).model_dump()
    assert len(graph.rejected) == 1 and "ignored" in graph.rejected[0]


def test_many_stray_braces_after_the_answer_cost_a_bounded_read() -> None:
    text = CLEAN + " {x" * 50_000 + '{"relationships": []}'
    assert read_reply(RawGraph, text).entities == read_reply(RawGraph, CLEAN).entities


def test_an_answer_cut_off_by_the_token_limit_keeps_its_complete_entries() -> None:
    whole = read_reply(RawGraph, CLEAN)
    assert whole.relationships  # the cut below falls inside the last relationship
    for cut in (CLEAN.rindex('"sourceQuote"'), CLEAN.rindex("}") - 1, CLEAN.rindex("]")):
        graph = read_reply(RawGraph, CLEAN[:cut])
        assert [e.name for e in graph.entities] == [e.name for e in whole.entities]
        assert len(graph.rejected) == 1 and "cut off" in graph.rejected[0]
    # Cut inside the first entity: nothing complete, so the answer fails as a whole.
    with pytest.raises(ValidationError):
        read_reply(RawGraph, CLEAN[: CLEAN.index('"type"')])


def test_a_judges_answer_cut_off_keeps_its_complete_verdicts() -> None:
    text = '{"verdicts": [{"pair_id": 1, "verdict": "old"}, {"pair_id": 2, "verd'
    reply = read_reply(JudgeOutput, text)
    assert [(v.pair_id, v.verdict) for v in reply.verdicts] == [(1, "old")]


@pytest.mark.parametrize(
    "text",
    [
        '{"status": "ok", "result": ' + CLEAN + "}",  # an envelope beside a status
        '{"data": {"result": ' + CLEAN + "}}",  # envelopes in envelopes
        CLEAN.replace('"entities"', '"Entities"').replace('"relationships"', '"Relationships"')
        .replace('"literalFacts"', '"literal_facts"'),  # another case or spelling
        CLEAN.replace('"sourceQuote"', '"source_quote"').replace('"confidence"', '"Confidence"'),
        CLEAN.replace("}],", "},],").replace("]}", "],}"),  # trailing commas
        "{\n  // the entities\n"
        + CLEAN[1:].replace(', "literalFacts"', ' /* none */, "literalFacts"'),  # comments
    ],
)  # fmt: skip
def test_an_answer_in_another_shape_or_with_what_json_forbids_reads_the_same(text: str) -> None:
    graph = read_reply(RawGraph, text)
    assert graph.model_dump() == read_reply(RawGraph, CLEAN).model_dump()
    assert graph.rejected == []


def test_objects_past_the_bound_of_a_split_answer_are_said_to_be_left_unread() -> None:
    claim = '{"relationships": [{"subject": "user", "predicate": "likes", "object": "tea"}]}'
    graph = read_reply(RawGraph, CLEAN + "\n" + "\n".join([claim] * 50))
    assert len(graph.rejected) == 1 and "after the first 8 read" in graph.rejected[0]
