"""The quote check on a corpus of chat sentences in many languages (data/quote_corpus.jsonl).

Each row is a message, the span an extractor would quote from it and whether that span is
the user's statement. The rows were written by four reviews of the rules for hedges,
conditions, time clauses, advice asked, takebacks and others' views, each without seeing
the rules' code, to find both what the rules miss and what they wrongly catch (a trigger
word in an innocent use). Rows marked
``known_miss`` are what the check still gets wrong: they are expected to fail, strictly,
so a change that fixes one says so and the mark comes off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from streams.domain.quotes import quote_found

CORPUS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "quote_corpus.jsonl").read_text().splitlines()
    if line.strip()
]


def _case(row: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason="known miss")] if row.get("known_miss") else []
    return pytest.param(row, id=f"{row['lang']}-{row['rule']}-{row['said'][:40]}", marks=marks)


@pytest.mark.parametrize("row", [_case(row) for row in CORPUS])
def test_the_corpus_verdicts(row: dict[str, Any]) -> None:
    assert quote_found(row["quote"], [row["said"]]) is row["users"], row.get("note", "")


@pytest.mark.parametrize("width", [1, 3])
def test_any_span_of_any_sentence_is_checked_without_an_error(width: int) -> None:
    """Whatever span a model quotes, the check answers (an exception would fail the
    episode's extraction): every run of ``width`` words of every corpus message."""
    for row in CORPUS:
        words = row["said"].split()
        for at in range(max(1, len(words) - width + 1)):
            assert quote_found(" ".join(words[at : at + width]), [row["said"]]) in (True, False)
