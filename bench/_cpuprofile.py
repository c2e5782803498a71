"""Run ``factstream ARGS`` under cProfile timed by the main thread's CPU clock.

``python -m cProfile`` times wall clock, so on a busy 2-core machine its top entries are
``epoll.poll`` and ``socket.send`` waiting for the CPU. Timing by ``time.thread_time``
shows where the worker's Python thread spends CPU (librdkafka's threads are not in it).
Usage: python -m bench._cpuprofile OUT.prof worker STAGE ...
"""

from __future__ import annotations

import cProfile
import sys
import time


def main() -> None:
    out = sys.argv[1]
    sys.argv = ["factstream", *sys.argv[2:]]
    from streams.cli.main import app

    prof = cProfile.Profile(time.thread_time)

    prof.enable()
    try:
        app()  # the worker returns on SIGTERM after its drain, so the dump below runs
    except SystemExit:
        pass
    finally:
        prof.disable()
        prof.dump_stats(out)


if __name__ == "__main__":
    main()
