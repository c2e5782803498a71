"""`factstream publish FILE|-`: JSONL EpisodeCompleted events onto the input topic.

Each line is validated on its own. A bad line is reported with its line number and the
reason and skipped; every good line is published, keyed by its tenant. Blank lines are
ignored. Exit codes (see :func:`exit_code`): 0 all published, 1 some lines skipped (the
good ones were still published), 3 the broker did not take some events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pydantic import ValidationError

from streams.events import EpisodeCompleted, decode_episode
from streams.kafka.admin import admin_client, topic_partitions
from streams.kafka.publisher import Delivery, FailedDelivery, Publisher, PublishError
from streams.settings import Settings

EXIT_OK = 0
EXIT_SKIPPED = 1
EXIT_UNDELIVERED = 3
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class BadLine:
    line_no: int
    reason: str


@dataclass(frozen=True)
class GoodLine:
    line_no: int
    event: EpisodeCompleted


@dataclass
class PublishSummary:
    published: int = 0
    skipped: list[BadLine] = field(default_factory=list)
    failed: list[FailedDelivery] = field(default_factory=list)
    undelivered: int = 0
    per_tenant: Counter[str] = field(default_factory=Counter)
    partitions: dict[str, set[int]] = field(default_factory=dict)

    def exit_code(self) -> int:
        if self.failed or self.undelivered:
            return EXIT_UNDELIVERED
        return EXIT_SKIPPED if self.skipped else EXIT_OK


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem: ``window.to_seq: Input should be ... ; messages.0.role: ...``."""
    problems = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(part) for part in err["loc"]) or "event"
        problems.append(f"{where}: {err['msg']}")
    return "; ".join(problems)


def parse_lines(lines: Iterable[str | bytes]) -> Iterator[GoodLine | BadLine]:
    """Validate JSONL lines one by one (1-based line numbers, blank lines ignored; a UTF-8
    byte order mark before the first line is not part of it)."""
    for line_no, line in enumerate(lines, start=1):
        raw = line.encode() if isinstance(line, str) else line
        if line_no == 1:  # a byte order mark, as Windows editors and PowerShell write files
            raw = raw.removeprefix(UTF8_BOM)
        if not raw.strip():
            continue
        try:
            yield GoodLine(line_no, decode_episode(raw.strip()))
        except ValidationError as exc:
            yield BadLine(line_no, describe_validation_error(exc))
        except ValueError as exc:  # the byte limit, checked before parsing
            yield BadLine(line_no, str(exc))


def publish_lines(
    settings: Settings,
    lines: Iterable[str | bytes],
    *,
    topic: str | None = None,
    flush_timeout: float = 60.0,
) -> PublishSummary:
    """Publish every valid line; return what was published, skipped and not delivered.

    Raises TopicNotFoundError (a LookupError) when the topic does not exist.
    """
    summary = PublishSummary()

    def on_delivery(result: Delivery | FailedDelivery) -> None:
        if isinstance(result, Delivery):
            summary.published += 1
            summary.per_tenant[result.tenant] += 1
            summary.partitions.setdefault(result.tenant, set()).add(result.partition)
        else:
            summary.failed.append(result)

    publisher = Publisher(settings, topic=topic, on_delivery=on_delivery)
    # Fail fast and clearly, instead of each event timing out on a missing topic.
    topic_partitions(admin_client(settings), publisher.topic)
    for parsed in parse_lines(lines):
        if isinstance(parsed, BadLine):
            summary.skipped.append(parsed)
        else:
            publisher.publish(parsed.event)
    try:
        publisher.flush(flush_timeout)
    except PublishError as exc:
        # Failures were already counted by on_delivery; keep what is still queued.
        summary.undelivered = exc.undelivered
    return summary
