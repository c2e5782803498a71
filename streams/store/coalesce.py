"""Micro-batching: the same read asked by several records at once goes as one statement.

A stage's lanes run concurrently, one record per tenant at a time (key-ordered lanes), so
under load several tenants' records ask the same question of the database within a few
milliseconds of each other. A :class:`Coalescer` sends the first request at once and
gathers the ones that arrive while a statement is on its way; they go together as one
set-based statement when it returns, and each caller gets its own answer. A quiet worker
therefore waits for nothing, and a busy one makes one round trip where it made many.

Order: the requests of one batch come from different lanes, and a tenant has at most one
record in flight per stage, so a batch never holds two of one tenant's records and
cannot reorder them. Isolation: the statement is keyed by each request's own tenant, so
no request can read another's rows. Failure: when a batch fails, each of its requests
is run alone, so one record's bad input fails that record only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

Request = TypeVar("Request")
Answer = TypeVar("Answer")

RunBatch = Callable[[Sequence[Request]], Awaitable[Sequence[Answer]]]


class Coalescer(Generic[Request, Answer]):
    """Runs ``run_batch`` over the requests gathered while the previous batch ran, at most
    ``max_batch`` at a time; ``run_batch`` returns one answer per request, in order."""

    def __init__(self, run_batch: RunBatch[Request, Answer], max_batch: int = 64) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run_batch = run_batch
        self._max_batch = max_batch
        self._waiting: list[tuple[Request, asyncio.Future[Answer]]] = []
        self._sending: list[tuple[Request, asyncio.Future[Answer]]] = []
        # The loop keeps only a weak reference to a task: held here so it runs to the end.
        self._drainer: asyncio.Task[None] | None = None
        self.batches = 0  # statements sent, for tests and metrics
        self.requests = 0

    async def __call__(self, request: Request) -> Answer:
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting.append((request, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                self._sending = self._waiting[: self._max_batch]
                del self._waiting[: self._max_batch]
                await self._answer(self._sending)
        finally:
            # Stopped half-way (the loop is shutting down): no caller waits forever.
            for _, future in (*self._sending, *self._waiting):
                if not future.done():
                    future.cancel()
            self._sending, self._waiting = [], []

    async def _answer(self, batch: list[tuple[Request, asyncio.Future[Answer]]]) -> None:
        self.batches += 1
        self.requests += len(batch)
        try:
            answers = await self._run_batch([request for request, _ in batch])
            if len(answers) != len(batch):
                raise RuntimeError(f"{len(answers)} answers for {len(batch)} requests")
        except Exception as exc:
            if len(batch) == 1:
                if not batch[0][1].done():  # not cancelled meanwhile
                    batch[0][1].set_exception(exc)
                return
            for one in batch:  # alone, so only a request that fails by itself fails
                await self._answer([one])
            return
        for (_, future), answer in zip(batch, answers, strict=True):
            if not future.done():
                future.set_result(answer)


def on_pool(
    pool: Any, run: Callable[[Any, Sequence[Request]], Awaitable[Sequence[Answer]]]
) -> Coalescer[Request, Answer]:
    """A :class:`Coalescer` whose every batch runs ``run(conn, requests)`` on a connection
    of ``pool`` of its own."""

    async def batch(requests: Sequence[Request]) -> Sequence[Answer]:
        async with pool.acquire() as conn:
            return await run(conn, requests)

    return Coalescer(batch)
