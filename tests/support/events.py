"""Events as an application would publish them, for tests."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from streams.domain.graph import RawGraph
from streams.events import EpisodeCompleted, Message, Role, Window

# Ten days ago: when the test conversations took place.
BASE_TIME = (datetime.now(UTC) - timedelta(days=10)).replace(microsecond=0)


def episode(
    dataset: str,
    project_id: str,
    episode_id: str,
    text: str,
    *,
    session_id: str = "s-1",
    completed_at: datetime = BASE_TIME,
) -> EpisodeCompleted:
    """One user turn and the assistant's reply, as an application would publish them."""
    messages = [
        Message(
            seq=1, role=Role.USER, content=text, created_at=completed_at - timedelta(minutes=1)
        ),
        Message(seq=2, role=Role.ASSISTANT, content="Noted.", created_at=completed_at),
    ]
    return EpisodeCompleted(
        dataset=dataset, project_id=project_id, episode_id=episode_id, session_id=session_id,
        window=Window(from_seq=1, to_seq=2), messages=messages, completed_at=completed_at,
    )  # fmt: skip


def new_tenant() -> tuple[str, str]:
    """A (dataset, project_id) no other test uses."""
    hex_id = uuid.uuid4().hex[:10]
    return f"ds-{hex_id}", f"p-{hex_id}"


def telling(graph: RawGraph) -> str:
    """A user message that states what ``graph`` claims, so its claims' quotes (the
    user's words, QUOTE_THE_USER) mention what each claim says."""
    claims = [*graph.relationships, *graph.literalFacts]
    return ". ".join(f"{c.subject} {c.predicate} {c.object}" for c in claims) or "Nothing new."
