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
