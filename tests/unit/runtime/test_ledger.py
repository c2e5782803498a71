from streams.runtime.ledger import PartitionLedger
from streams.runtime.records import OutRecord


def out(n: int) -> tuple[OutRecord, ...]:
    return (OutRecord("o", b"k", str(n).encode()),)


def test_prefix_waits_for_the_lowest_unfinished_offset() -> None:
    led = PartitionLedger("t", 0, epoch=1)
    for off in (10, 11, 13, 14):  # offsets need not be contiguous (transaction markers)
        assert led.add(off)
    led.finish(11, out(11))
    led.finish(13, out(13))
    assert led.ready() is None  # 10 is still running: nothing may commit
    led.finish(10, out(10))
    plan = led.ready()
    assert plan is not None
    assert [o for o, _ in plan.entries] == [10, 11, 13]
    assert plan.next_offset == 14
    assert plan.entries[2][1] == out(13)
    assert led.unfinished == 1 and led.held == 3


def test_prune_forgets_committed_and_keeps_the_rest() -> None:
    led = PartitionLedger("t", 3, epoch=2)
    for off in range(5):
        led.add(off)
        led.finish(off, ())
    led.prune(3)
    plan = led.ready()
    assert plan is not None and [o for o, _ in plan.entries] == [3, 4]
    assert len(led) == 2


def test_stale_or_repeated_offsets_are_ignored() -> None:
    led = PartitionLedger("t", 0, epoch=1)
    assert led.add(5)
    assert not led.add(5)
    assert not led.add(4)
    assert len(led) == 1


def test_position_commits_past_markers_only_when_nothing_is_in_flight() -> None:
    led = PartitionLedger("t", 0, epoch=1)
    for off in (0, 1, 2):  # records of one upstream transaction; its marker is offset 3
        led.add(off)
    led.advance(4)  # the consumer stepped over the marker
    led.finish(0, out(0))
    led.finish(2, out(2))
    plan = led.ready()
    assert plan is not None and plan.position is None and plan.next_offset == 1  # 1 runs
    led.finish(1, out(1))
    plan = led.ready()
    assert plan is not None and plan.position == 4 and plan.next_offset == 4
    assert [o for o, _ in plan.entries] == [0, 1, 2]


def test_a_position_alone_makes_a_plan_once() -> None:
    led = PartitionLedger("t", 0, epoch=1)
    led.add(7)
    led.finish(7, ())
    plan = led.ready()
    assert plan is not None and plan.next_offset == 8
    led.prune(8)
    assert led.ready() is None
    led.advance(9)  # the marker after offset 7 was read later, with no record
    plan = led.ready()
    assert plan is not None and plan.entries == () and plan.next_offset == 9
    led.prune(9)
    assert led.ready() is None
    led.advance(9)
    assert led.ready() is None


def test_a_position_below_a_tracked_record_is_ignored() -> None:
    led = PartitionLedger("t", 0, epoch=1)
    led.add(5)
    led.advance(5)  # stale: not past the record it must cover
    led.finish(5, ())
    plan = led.ready()
    assert plan is not None and plan.position is None and plan.next_offset == 6
    led.add(6)  # a newer record arrives after the position was read: it holds the commit
    led.advance(8)
    plan = led.ready()
    assert plan is not None and plan.next_offset == 6
