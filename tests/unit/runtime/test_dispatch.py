import asyncio
import random

from streams.runtime.dispatch import KeyedDispatcher
from streams.runtime.records import OutRecord, Record


def rec(key: str, offset: int, partition: int = 0) -> Record:
    return Record("t", partition, offset, key.encode(), b"")


async def test_same_key_in_order_different_keys_concurrently_under_the_limit() -> None:
    rng = random.Random(1)
    running = 0
    peak = 0
    log: list[tuple[str, str, int]] = []
    done: list[Record] = []

    async def process(r: Record) -> tuple[OutRecord, ...]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        log.append(("start", r.key.decode() if r.key else "", r.offset))
        await asyncio.sleep(rng.uniform(0, 0.005))
        log.append(("end", r.key.decode() if r.key else "", r.offset))
        running -= 1
        return ()

    d = KeyedDispatcher(4, process, lambda r, _o: done.append(r))
    records = [rec(f"k{i % 10}", i) for i in range(200)]
    for r in records:
        d.submit(r)
    while d.queued:
        await asyncio.sleep(0.001)
    assert len(done) == 200 and d.running == 0
    assert peak == 4
    for k in range(10):
        offs = [r.offset for r in done if r.key == f"k{k}".encode()]
        assert offs == sorted(offs)
        # never two records of one key at once: every start follows the previous end
        events = [(e, o) for e, key, o in log if key == f"k{k}"]
        assert all(
            events[i][0] == "start" and events[i + 1] == ("end", events[i][1])
            for i in range(0, len(events), 2)
        )


async def test_by_partition_runs_one_partition_sequentially() -> None:
    peak = 0
    running = 0

    async def process(r: Record) -> tuple[OutRecord, ...]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001)
        running -= 1
        return ()

    d = KeyedDispatcher(8, process, lambda r, o: None, by_partition=True)
    for i in range(20):
        d.submit(rec(f"k{i}", i))
    while d.queued:
        await asyncio.sleep(0.001)
    assert peak == 1


async def test_drop_cancels_and_a_new_lane_of_that_key_waits_for_the_old_one() -> None:
    gate = asyncio.Event()
    order: list[str] = []

    async def process(r: Record) -> tuple[OutRecord, ...]:
        try:
            await gate.wait()
        finally:
            order.append(f"exit{r.offset}")
        return ()

    done: list[int] = []
    d = KeyedDispatcher(4, process, lambda r, o: done.append(r.offset))
    d.submit(rec("a", 1))
    d.submit(rec("a", 2))
    d.submit(rec("b", 3, partition=1))
    await asyncio.sleep(0.01)
    assert d.pending([("t", 0)]) == 2
    tasks = d.drop([("t", 0)])
    assert len(tasks) == 1 and d.queued == 1
    d.submit(rec("a", 5))  # re-assigned: waits for the cancelled lane to unwind
    gate.set()
    while d.queued:
        await asyncio.sleep(0.001)
    assert order[0] == "exit1"
    assert sorted(done) == [3, 5]


async def test_a_crashing_process_function_reports_instead_of_hanging() -> None:
    crashed: list[BaseException] = []

    async def process(r: Record) -> tuple[OutRecord, ...]:
        raise RuntimeError("bug")

    d = KeyedDispatcher(2, process, lambda r, o: None, crashed=crashed.append)
    d.submit(rec("a", 1))
    await asyncio.sleep(0.01)
    assert len(crashed) == 1
