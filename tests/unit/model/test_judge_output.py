"""Reading the judge's answer: one clear verdict per pair, or none."""

from __future__ import annotations

from streams.domain.lenient import read_reply
from streams.events import Verdict
from streams.model.ports import JudgeOutput


def by_pair(text: str, known: set[int]) -> tuple[dict[int, Verdict], list[str]]:
    output = read_reply(JudgeOutput, text)
    return output.by_pair(known), output.rejected


def test_a_pair_given_two_different_verdicts_has_none() -> None:
    verdicts, _ = by_pair(
        '{"verdicts": [{"pair_id": 1, "verdict": "old"}, {"pair_id": 2, "verdict": "new"},'
        ' {"pair_id": 1, "verdict": "neither"}, {"pair_id": 2, "verdict": "new"}]}',
        {1, 2},
    )
    assert verdicts == {2: Verdict.NEW}  # pair 1 counts as neither: nothing ends


def test_true_is_not_pair_one_and_unknown_pairs_are_ignored() -> None:
    verdicts, rejected = by_pair(
        '{"verdicts": [{"pair_id": true, "verdict": "old"}, {"pair_id": 9, "verdict": "old"},'
        ' {"pair_id": "3", "verdict": " OLD "}]}',
        {1, 3},
    )
    assert verdicts == {3: Verdict.OLD}
    assert rejected == [
        "verdicts[0]: pair_id: Value error, a pair id is a number, not true or false"
    ]
