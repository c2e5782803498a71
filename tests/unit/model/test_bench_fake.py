"""The bench's scripted model quotes the user's own words, so the bench measures trusted
claims (judge pairs, supersessions, cascades), not a pipeline storing untrusted rows."""

from __future__ import annotations

import pytest

from streams.domain.quotes import normalise, quote_found
from streams.model.fakes.bench import episode_graph, episode_text


@pytest.mark.parametrize("k", [1, 2, 7, 40, 1234])
def test_every_claim_of_an_episode_quotes_what_the_user_said(k: int) -> None:
    graph = episode_graph(k)
    said = [text for role, text in episode_text(k) if role == "user"]
    texts = [normalise(t) for t in said]
    claims = [*graph.relationships, *graph.literalFacts]
    assert len(claims) == 6
    unquoted = [c for c in claims if not quote_found(c.sourceQuote, texts)]
    assert unquoted == []


def test_a_claim_quoting_the_assistant_would_be_caught() -> None:
    assistant = [text for role, text in episode_text(3) if role == "assistant"]
    user_only = [normalise(t) for role, t in episode_text(3) if role == "user"]
    assert not quote_found(assistant[0], user_only)
