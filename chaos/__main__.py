"""`python -m chaos` (`make chaos`): the fault drill; exit 1 when reconciliation fails.

python -m chaos                      # full: 500 episodes, own Kafka + Postgres
python -m chaos --profile short      # the CI-sized drill
python -m chaos --bootstrap H:P --database-url URL   # on given infra (no restarts)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from pathlib import Path

from rich.console import Console

from chaos.infra import Infra, given_infra, own_infra
from chaos.profile import PROFILES
from chaos.runner import drill, render, write_report
from streams.dev.proc import DevInfraError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m chaos",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--profile", choices=sorted(PROFILES), default="full")
    ap.add_argument("--seed", type=int, default=None, help="default: from the clock")
    ap.add_argument("--run-dir", type=Path, default=None, help="default .cache/chaos/runs/<ts>")
    ap.add_argument("--dev-dir", type=Path, default=Path(".cache/chaos/dev"))
    ap.add_argument("--kafka-port", type=int, default=39192)
    ap.add_argument("--controller-port", type=int, default=39193)
    ap.add_argument("--bootstrap", help="use this Kafka (no broker restart)")
    ap.add_argument("--database-url", help="use this Postgres server URL (no restart)")
    ap.add_argument("--keep-infra", action="store_true", help="leave our Kafka/Postgres up")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    console = Console(width=None if sys.stdout.isatty() else 160)
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    run_dir = args.run_dir or Path(".cache/chaos/runs") / time.strftime("%Y%m%d-%H%M%S")
    profile = PROFILES[args.profile]
    infra: Infra
    if args.bootstrap and args.database_url:
        infra = given_infra(args.bootstrap, args.database_url)
    else:
        console.print(
            f"starting the drill's own Kafka (127.0.0.1:{args.kafka_port}) and"
            f" Postgres in {args.dev_dir} ...",
            highlight=False,
        )
        try:
            infra = own_infra(args.dev_dir, args.kafka_port, args.controller_port)
        except DevInfraError as exc:
            console.print(f"[red]error:[/red] {exc}")
            return 2
    try:
        result = asyncio.run(
            drill(
                profile,
                infra,
                run_dir.resolve(),
                seed,
                say=lambda s: console.print(s, highlight=False, markup=False),
            )
        )
    finally:
        if not args.keep_infra:
            for line in infra.stop():
                console.print(line, highlight=False)
    render(result.reconciliation, console)
    console.print(f"report: {write_report(result, run_dir)}", highlight=False)
    return 0 if result.reconciliation.ok else 1


if __name__ == "__main__":
    sys.exit(main())
