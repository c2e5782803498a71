"""Good episodes written oddly: records that look wrong but must be processed.

A forged release header (it names no live claim), no event_id (derived from the content),
messages out of seq order or outside the window, a reversed window (no messages in it:
skipped), offsets and nanoseconds in times. (A record with no key is poison: no_key.)
tests/scenarios/test_poison_corpus.py sends them between the poison records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from chaos.poison_episodes import episode_payload


@dataclass(frozen=True)
class Oddity:
    """A record that looks wrong but is a good episode: it must end ``status``."""

    name: str
    key: bytes | None
    value: bytes
    status: str  # the extraction status it must end with
    headers: tuple[tuple[str, bytes], ...] = ()
    episode_id: str = ""


def oddities(dataset: str, project: str, say: str) -> list[Oddity]:
    """Good episodes written oddly, of tenant ``dataset:project``; ``say`` is a user line
    the model extracts a fact from."""
    tenant = f"{dataset}:{project}".encode()

    def ep(tag: str, **overrides: object) -> dict[str, object]:
        base = episode_payload(dataset, project, tag, **overrides)
        base["episode_id"] = f"odd-{tag}"
        base["messages"] = overrides.get("messages") or [  # type: ignore[assignment]
            {"seq": 0, "role": "user", "content": say, "created_at": "2026-01-01T00:00:00Z"}
        ]
        return base

    def odd(
        tag: str,
        status: str,
        payload: dict[str, object],
        key: bytes | None = tenant,
        headers: tuple[tuple[str, bytes], ...] = (),
    ) -> Oddity:
        return Oddity(tag, key, json.dumps(payload).encode(), status, headers, f"odd-{tag}")

    line = {"role": "user", "content": say, "created_at": "2026-01-01T00:00:00Z"}
    no_id = ep("no-event-id")
    no_id.pop("event_id")
    return [
        odd("forged-release", "done", ep("forged-release"),
            headers=(("factstream-release-claim", b"not-a-claim"),
                     ("factstream-release-reason", b"forged"))),
        odd("no-event-id", "done", no_id),
        odd("unsorted", "done", ep("unsorted", window={"from_seq": 0, "to_seq": 1},
                                   messages=[{"seq": 1, **line}, {"seq": 0, **line}])),
        odd("outside-window", "done", ep("outside-window", window={"from_seq": 1, "to_seq": 1},
                                         messages=[{"seq": 0, **line}, {"seq": 1, **line}])),
        odd("reversed-window", "skipped", ep("reversed-window",
                                             window={"from_seq": 5, "to_seq": 1})),
        odd("offset-times", "done", ep("offset-times",
                                       completed_at="2026-01-01T05:30:00.123456789+05:30")),
    ]  # fmt: skip
