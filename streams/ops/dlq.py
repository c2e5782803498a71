"""`factstream dlq list|show|redrive STAGE`: read and redrive a stage's dead letters.

A dead letter (streams/runtime/dlq.py) is the original record, key and value untouched,
with x- headers naming where it came from and why it failed. ``redrive`` re-produces
chosen dead letters to their original topic with their original key and original
headers (the x- error headers are dropped; ``factstream-redriven-from`` is added) through
an idempotent producer, then records what it sent in the redrive ledger (see
streams/ops/redrive_ledger.py) so a second redrive does not send a record again. A record
that had no key is sent keyed by the tenant its payload names (sent keyless, a worker
would only dead-letter it again as ``no_key``); one whose payload names none, and one
keyed by another tenant than its payload names (``key_mismatch``), are not sent: each
would come back as a new dead letter, for the next redrive to send again.

A value the runtime split over several DLQ records (``x-value-part``) is one dead letter
here: listed once, shown and redriven whole, its parts joined in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from streams.kafka import admin as ka
from streams.kafka.publisher import RecordSender
from streams.kafka.range_reader import RangeRecord, read_ranges
from streams.ops.dlq_payload import payload_tenant as payload_tenant
from streams.ops.dlq_payload import render_payload as render_payload
from streams.ops.redrive_ledger import PartitionLedger, redrive_group
from streams.runtime.dlq import (
    DLQ_HEADERS,
    H_EXC_CLASS,
    H_EXC_MESSAGE,
    H_OFFSET,
    H_PARTITION,
    H_REASON,
    H_TOPIC,
    H_TRUNCATED,
    PART_HEADERS,
    error_headers,
    part_of,
)
from streams.runtime.records import bytes_as_text as bytes_as_text  # what readers here use
from streams.settings import Settings

REDRIVEN_FROM_HEADER = "factstream-redriven-from"


@dataclass(frozen=True)
class DeadLetter:
    record: RangeRecord  # the dead letter, or the first of its parts
    rest: tuple[RangeRecord, ...] = ()  # its further parts, in order

    @property
    def value(self) -> bytes | None:
        """The original value, joined from every part."""
        if not self.rest:
            return self.record.value
        return b"".join(r.value or b"" for r in (self.record, *self.rest))

    @property
    def parts_expected(self) -> int:
        return part_of(self.record.headers)[1]

    @property
    def offsets(self) -> list[int]:
        return [r.offset for r in (self.record, *self.rest)]

    @property
    def errors(self) -> dict[str, str]:
        return error_headers(self.record.headers)

    @property
    def tenant(self) -> str:
        key = self.record.key
        return "" if key is None else bytes_as_text(key)

    @property
    def reason(self) -> str:
        """``<reason word>: <exception class>: <message>``, what --reason searches."""
        e = self.errors
        cls = e.get(H_EXC_CLASS, "?").rsplit(".", 1)[-1]
        return f"{e.get(H_REASON, '?')}: {cls}: {e.get(H_EXC_MESSAGE, '')}"

    @property
    def original(self) -> str:
        e = self.errors
        return f"{e.get(H_TOPIC, '?')}/{e.get(H_PARTITION, '?')}/{e.get(H_OFFSET, '?')}"

    def matches(self, tenant: str | None, reason: str | None) -> bool:
        if tenant is not None and self.tenant != tenant:
            return False
        return reason is None or reason.lower() in self.reason.lower()

    def original_headers(self) -> list[tuple[str, bytes]]:
        return [(k, v) for k, v in self.record.headers if k not in DLQ_HEADERS]

    @property
    def redrive_key(self) -> bytes | None:
        """The key a redrive sends: the original one; for a record that had none, the
        tenant its payload names (a keyless record is dead-lettered again, ``no_key``)."""
        if self.record.key is not None:
            return self.record.key
        tenant = payload_tenant(self.value)
        return None if tenant is None else tenant.encode("utf-8")

    def unroutable_reason(self) -> str | None:
        """Why this dead letter cannot be redriven as is, or None."""
        if not self.errors.get(H_TOPIC):
            return f"no {H_TOPIC} header"
        if H_TRUNCATED in self.errors:
            return f"value was truncated from {self.errors[H_TRUNCATED]} bytes"
        if 1 + len(self.rest) != self.parts_expected:
            return f"only {1 + len(self.rest)} of its {self.parts_expected} parts were found"
        return self._unkeyable()

    def _unkeyable(self) -> str | None:
        """Why the worker would refuse its key again (a redrive would only make another
        dead letter, and the next redrive another), or None."""
        key, tenant = self.record.key, payload_tenant(self.value)
        if key is None and tenant is None:
            return "it has no key and its payload names no tenant to key it by"
        if key is not None and tenant is not None and key != tenant.encode("utf-8"):
            return (
                f"its key '{self.tenant[:200]}' is not the tenant its payload names"
                f" '{tenant[:200]}': it would be dead-lettered again (key_mismatch)"
            )
        return None


def assemble(records: Iterable[RangeRecord]) -> Iterator[DeadLetter]:
    """Dead letters from DLQ records in offset order (per partition): a split value's
    parts are joined to its first part; parts whose first is missing are skipped."""
    open_: dict[tuple[object, ...], list[RangeRecord]] = {}
    for record in records:
        i, n = part_of(record.headers)
        if n == 1:
            yield DeadLetter(record)
            continue
        errors = error_headers(record.headers)
        ident = (record.partition, *(errors.get(h) for h in PART_HEADERS))
        if i == 1:
            open_[ident] = [record]
        elif ident in open_ and len(open_[ident]) == i - 1:
            open_[ident].append(record)
        if ident in open_ and len(open_[ident]) == n:
            first, *rest = open_.pop(ident)
            yield DeadLetter(first, tuple(rest))
    for first, *rest in open_.values():  # incomplete: listed, never redriven
        yield DeadLetter(first, tuple(rest))


def _dlq_ranges(settings: Settings, stage: str) -> tuple[str, dict[int, tuple[int, int]]]:
    """The DLQ topic and every partition's [log start, log end) now."""
    topic = settings.dlq_topic(stage)
    admin = ka.admin_client(settings)
    return topic, ka.watermarks(admin, topic, ka.topic_partitions(admin, topic))


def iter_dead_letters(settings: Settings, stage: str) -> Iterator[DeadLetter]:
    """Every dead letter of the stage present now, partition by partition."""
    topic, ranges = _dlq_ranges(settings, stage)
    yield from assemble(read_ranges(settings, topic, ranges))


def list_dead_letters(
    settings: Settings, stage: str, *, tenant: str | None = None, reason: str | None = None
) -> list[DeadLetter]:
    found = [d for d in iter_dead_letters(settings, stage) if d.matches(tenant, reason)]
    return sorted(found, key=lambda d: (d.record.timestamp_ms, d.record.partition))


def get_dead_letter(settings: Settings, stage: str, partition: int, offset: int) -> DeadLetter:
    """The dead letter at partition/offset, with its later parts if it has any."""
    topic, ranges = _dlq_ranges(settings, stage)
    low, end = ranges.get(partition, (0, 0))
    if low <= offset < end:  # else there is nothing to wait for: the reader would stall
        records = read_ranges(settings, topic, {partition: (offset, end)})
        for letter in assemble(records):
            if letter.record.offset == offset:
                return letter
    raise _no_letter(topic, ranges, partition, offset)


def _no_letter(
    topic: str, ranges: dict[int, tuple[int, int]], partition: int, offset: int
) -> LookupError:
    if partition not in ranges:
        return LookupError(f"{topic} has no partition {partition} (it has {len(ranges)})")
    return LookupError(f"no dead letter at {topic} partition {partition} offset {offset}")


def _ledgers(
    admin: Any, group: str, topic: str, ranges: dict[int, tuple[int, int]]
) -> dict[int, PartitionLedger]:
    """Per partition, what earlier redrives sent (the redrive group's offsets)."""
    partitions = ka.topic_partitions(admin, topic)
    stored = ka.committed_with_metadata(admin, group, topic, partitions)
    ledgers = {p: PartitionLedger.parse(*stored[p]) for p in partitions}
    for p, (low, _) in ranges.items():
        ledgers[p].floor(low)  # records below the log start are gone: nothing to redrive
    return ledgers


def _the_one(
    letters: list[DeadLetter],
    only: tuple[int, int],
    topic: str,
    ranges: dict[int, tuple[int, int]],
) -> list[DeadLetter]:
    """The letter at ``only``, alone; LookupError when there is none."""
    chosen = [d for d in letters if (d.record.partition, d.record.offset) == only]
    if not chosen:
        raise _no_letter(topic, ranges, *only)
    return chosen[:1]


@dataclass
class RedriveResult:
    redriven: list[tuple[DeadLetter, str]] = field(default_factory=list)  # (letter, landed at)
    already: int = 0  # sent by an earlier redrive
    filtered_out: int = 0
    unroutable: list[tuple[DeadLetter, str]] = field(default_factory=list)
    failed: list[tuple[DeadLetter, str]] = field(default_factory=list)


def redrive(
    settings: Settings,
    stage: str,
    *,
    tenant: str | None = None,
    reason: str | None = None,
    only: tuple[int, int] | None = None,
    dry_run: bool = False,
) -> RedriveResult:
    """Re-produce matching dead letters not redriven before; record them in the ledger.

    ``only``: a single (partition, offset); LookupError when there is no dead letter
    there. ``dry_run``: report, send nothing, record nothing.
    """
    admin = ka.admin_client(settings)
    topic = settings.dlq_topic(stage)
    group = redrive_group(stage)
    # Read from the log start (dead-letter topics are small) so the report can count what
    # earlier redrives sent; the ledger decides what is sent.
    _, ranges = _dlq_ranges(settings, stage)
    ledgers = _ledgers(admin, group, topic, ranges)
    result = RedriveResult()
    sender = RecordSender(settings)

    def delivered(letter: DeadLetter) -> Callable[[str | None, str], None]:
        def report(error: str | None, landed_at: str) -> None:
            if error is not None:
                result.failed.append((letter, error))
                return
            for offset in letter.offsets:
                ledgers[letter.record.partition].mark(offset)
            result.redriven.append((letter, landed_at))

        return report

    letters = list(assemble(read_ranges(settings, topic, ranges)))
    if only is not None:
        result.filtered_out = len(letters) - 1
        letters = _the_one(letters, only, topic, ranges)
    for letter in letters:
        record = letter.record
        if ledgers[record.partition].is_done(record.offset):
            result.already += 1
        elif not letter.matches(tenant, reason):
            result.filtered_out += 1
        elif (why := letter.unroutable_reason()) is not None:
            result.unroutable.append((letter, why))
        elif dry_run:
            result.redriven.append((letter, letter.errors[H_TOPIC]))
        else:
            source = f"{topic}/{record.partition}/{record.offset}".encode()
            sender.send(
                letter.errors[H_TOPIC],
                letter.redrive_key,
                letter.value,
                [*letter.original_headers(), (REDRIVEN_FROM_HEADER, source)],
                delivered(letter),
            )
    if dry_run:
        return result
    if sender.flush(60.0):
        raise RuntimeError("redrive: some records were still undelivered after 60 s")
    # No process ever joins the redrive group, so the admin API may set its offsets.
    ka.alter_offsets(
        admin,
        group,
        topic,
        {p: ledger.low for p, ledger in ledgers.items()},
        {p: ledger.metadata() for p, ledger in ledgers.items()},
    )
    return result
