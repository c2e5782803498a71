"""A watchdog for client calls that may never return.

After a broker restart librdkafka can block forever inside ``send_offsets_to_transaction``
or ``commit_transaction``, far past the timeout it was given (confluentinc/librdkafka#5456,
open upstream). The Kafka thread is then stuck in C code: it cannot be interrupted, and
the worker stops polling. ``Watchdog`` times each watched call from its own thread and,
past the deadline, calls ``on_expire`` once; the worker's ``exit_hung`` logs and ends the
process, so its supervisor restarts it. That keeps exactly-once: the dead process's open
transaction is aborted by the broker (at once when the restarted worker reuses its
transactional id and fences it, else after ``transaction.timeout.ms``), and the consumed
offsets it had not committed are read again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger("streams.runtime.watchdog")

# Exit code of a worker that ended itself because a Kafka call hung (streams/cli/worker.py).
EXIT_HUNG = 3


# A transactional call normally returns in milliseconds; one this slow is logged (once)
# while it runs, so a stall short of the deadline still says which call it was.
SLOW_CALL_S = 5.0


class Watchdog:
    """Times one call at a time (the Kafka thread's) against ``deadline_s``; 0 = off.
    A call still running after ``slow_s`` is logged once as slow."""

    def __init__(
        self,
        deadline_s: float,
        on_expire: Callable[[str, float], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        tick_s: float | None = None,
        name: str = "kafka-watchdog",
        slow_s: float = SLOW_CALL_S,
    ) -> None:
        self.deadline_s = deadline_s
        self.slow_s = slow_s
        self._on_expire = on_expire
        self._clock = clock
        self._tick_s = tick_s if tick_s is not None else max(0.01, min(1.0, deadline_s / 10))
        self._name = name
        self._cond = threading.Condition()
        self._armed: tuple[str, float] | None = None  # (call, started)
        self._fired = False
        self._slow_logged = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self.longest_s = 0.0  # the slowest watched call that returned

    @contextmanager
    def watch(self, what: str) -> Iterator[None]:
        if self.deadline_s <= 0:
            yield
            return
        with self._cond:
            self._armed = (what, self._clock())
            self._slow_logged = False
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._cond:
                if self._armed is not None:
                    self.longest_s = max(self.longest_s, self._clock() - self._armed[1])
                self._armed = None

    def check(self) -> bool:
        """Fire ``on_expire`` if the watched call is past the deadline (once); True if so."""
        with self._cond:
            armed = self._armed
            if armed is None or self._fired:
                return False
            elapsed = self._clock() - armed[1]
            slow = elapsed >= self.slow_s and not self._slow_logged
            self._slow_logged = self._slow_logged or slow
            hung = elapsed >= self.deadline_s
            self._fired = hung
        if not hung:
            if slow:
                log.warning("Kafka call %s still running after %.0fs", armed[0], elapsed,
                            extra={"kafka_call": armed[0]})  # fmt: skip
            return False
        self._on_expire(armed[0], elapsed)
        return True

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait(self._tick_s)
                if self._closed:
                    return
            try:
                self.check()
            except Exception:  # a broken callback must not kill the watch silently
                log.exception("watchdog callback failed")


def exit_hung(what: str, elapsed: float) -> None:
    """The worker's ``on_expire``: log, flush the logs, end the process at once.

    ``os._exit``, not ``sys.exit``: the stuck thread holds the client and would block a
    normal interpreter shutdown (atexit, non-daemon executor threads) forever.
    """
    log.critical(
        "Kafka call %s has not returned after %.0fs (a hung librdkafka call, see"
        " confluentinc/librdkafka#5456): exiting with code %d so the supervisor restarts the"
        " worker; its open transaction is aborted and the uncommitted records are read"
        " again",
        what,
        elapsed,
        EXIT_HUNG,
        extra={"kafka_call": what},
    )
    for flushable in [*logging.getLogger().handlers, sys.stdout, sys.stderr]:
        with contextlib.suppress(Exception):  # exiting anyway
            flushable.flush()
    os._exit(EXIT_HUNG)
