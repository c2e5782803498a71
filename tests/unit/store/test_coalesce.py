"""Micro-batching (streams/store/coalesce.py): requests made together share one batch, each
caller gets its own answer, and one bad request fails only itself."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from streams.store.coalesce import Coalescer


class Doubler:
    """A batch runner that records the batches it was given; refuses negative numbers."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.batches: list[list[int]] = []
        self.delay_s = delay_s

    async def __call__(self, requests: Sequence[int]) -> list[int]:
        self.batches.append(list(requests))
        await asyncio.sleep(self.delay_s)
        if any(r < 0 for r in requests):
            raise ValueError(f"negative request in {list(requests)}")
        return [2 * r for r in requests]


async def test_requests_made_together_share_one_batch_and_get_their_own_answers() -> None:
    run = Doubler()
    ask = Coalescer(run)
    answers = await asyncio.gather(*(ask(i) for i in range(5)))
    assert answers == [0, 2, 4, 6, 8]
    assert run.batches == [[0, 1, 2, 3, 4]]


async def test_a_request_made_while_a_batch_runs_goes_in_the_next_one() -> None:
    run = Doubler(delay_s=0.05)
    ask = Coalescer(run)
    first = asyncio.ensure_future(ask(1))
    await asyncio.sleep(0.01)  # the first batch is on its way
    later = await asyncio.gather(ask(2), ask(3))
    assert (await first, later) == (2, [4, 6])
    assert run.batches == [[1], [2, 3]]


async def test_a_lone_request_is_sent_at_once() -> None:
    run = Doubler()
    ask = Coalescer(run)
    assert await asyncio.wait_for(ask(7), timeout=1) == 14
    assert await ask(8) == 16
    assert run.batches == [[7], [8]]


async def test_a_failing_batch_is_run_one_by_one_so_only_the_bad_request_fails() -> None:
    run = Doubler()
    ask = Coalescer(run)
    results = await asyncio.gather(ask(1), ask(-1), ask(3), return_exceptions=True)
    assert results[0] == 2 and results[2] == 6
    assert isinstance(results[1], ValueError)
    assert run.batches == [[1, -1, 3], [1], [-1], [3]]


async def test_batches_are_at_most_max_batch() -> None:
    run = Doubler()
    ask = Coalescer(run, max_batch=2)
    assert await asyncio.gather(*(ask(i) for i in range(5))) == [0, 2, 4, 6, 8]
    assert run.batches == [[0, 1], [2, 3], [4]]


async def test_a_runner_that_miscounts_its_answers_fails_each_request_clearly() -> None:
    async def none(requests: Sequence[int]) -> list[int]:
        return []

    ask: Coalescer[int, int] = Coalescer(none)
    results = await asyncio.gather(ask(1), ask(2), return_exceptions=True)
    assert [str(r) for r in results] == ["0 answers for 1 requests"] * 2


async def test_a_cancelled_caller_does_not_stop_the_others() -> None:
    run = Doubler(delay_s=0.05)
    ask = Coalescer(run)
    gone = asyncio.ensure_future(ask(1))
    kept = asyncio.ensure_future(ask(2))
    await asyncio.sleep(0.01)
    gone.cancel()
    assert await kept == 4
    with pytest.raises(asyncio.CancelledError):
        await gone


def test_max_batch_must_allow_a_request() -> None:
    with pytest.raises(ValueError, match="max_batch"):
        Coalescer(Doubler(), max_batch=0)


async def test_callers_are_not_left_waiting_when_the_batching_task_is_stopped() -> None:
    run = Doubler(delay_s=1.0)
    ask = Coalescer(run)
    first = asyncio.ensure_future(ask(1))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(ask(2))  # waits for the next batch
    await asyncio.sleep(0.01)
    assert ask._drainer is not None
    ask._drainer.cancel()  # as the loop does when it shuts down
    for caller in (first, second):
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(caller, timeout=1)
    assert await ask(3) == 6  # and the next request starts a new one
