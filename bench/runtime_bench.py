"""Runtime throughput: records/s through the passthrough stage in real worker processes.

    FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:19092 .venv/bin/python bench/runtime_bench.py

Scenarios (default: both): ``instant`` (no handler delay) and ``slow`` (200 ms handler,
concurrency 32: the bound is 32 / 0.2 s = 160 records/s per worker). Input is produced
first; the rate is measured on the output topic, read read_committed, from the first
committed output to the last (so group join time is excluded). Numbers, not pass/fail;
the JSON lands in bench/out/runtime.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

REPO = Path(__file__).resolve().parents[1]
FACTORY = "tests.support.stages:create_passthrough"


def run(
    bootstrap: str,
    name: str,
    records: int,
    delay_ms: float,
    concurrency: int,
    workers: int,
    partitions: int,
    keys: int,
) -> dict[str, Any]:
    prefix = f"bench{uuid.uuid4().hex[:8]}."
    src, out = f"{prefix}runtime.in", f"{prefix}runtime.out"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = [src, out, f"{prefix}dlq.passthrough"]
    for f in admin.create_topics([NewTopic(t, partitions, 1) for t in names]).values():
        f.result(30)
    try:
        p = Producer(
            {
                "bootstrap.servers": bootstrap,
                "partitioner": "murmur2_random",
                "linger.ms": 20,
                "enable.idempotence": True,
            }
        )
        for i in range(records):
            key = f"ds{i % keys}:p"
            p.produce(
                src,
                key=key.encode(),
                value=json.dumps(
                    {"dataset": f"ds{i % keys}", "project_id": "p", "seq": i}
                ).encode(),
            )
            p.poll(0)
        p.flush(60)

        env = {k: v for k, v in os.environ.items() if not k.startswith("FACTSTREAM_")}
        env.update(
            FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=bootstrap,
            FACTSTREAM_TOPIC_PREFIX=prefix,
            FACTSTREAM_TEST_DELAY_MS=str(delay_ms),
            FACTSTREAM_LOG_LEVEL="WARNING",
        )
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "streams.cli.worker",
                    "passthrough",
                    "--stage-factory",
                    FACTORY,
                    "--group",
                    f"g-{prefix}",
                    "--concurrency",
                    str(concurrency),
                ],
                env=env,
                cwd=REPO,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(workers)
        ]
        started = time.monotonic()
        c = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"r-{prefix}",
                "isolation.level": "read_committed",
                "enable.auto.commit": False,
            }
        )
        c.assign([TopicPartition(out, i, OFFSET_BEGINNING) for i in range(partitions)])
        seen, first, last = 0, 0.0, 0.0
        deadline = started + max(120.0, 3 * records / 100)
        while seen < records and time.monotonic() < deadline:
            batch = [m for m in c.consume(1000, 0.2) if m.error() is None]
            if batch:
                now = time.monotonic()
                first = first or now
                last = now
                seen += len(batch)
        c.close()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(60)
    finally:
        for f in admin.delete_topics(names).values():
            with contextlib.suppress(Exception):
                f.result(30)
    span = max(last - first, 1e-9)
    return {
        "scenario": name,
        "records": records,
        "received": seen,
        "workers": workers,
        "concurrency": concurrency,
        "handler_delay_ms": delay_ms,
        "partitions": partitions,
        "keys": keys,
        "seconds_first_to_last": round(span, 2),
        "records_per_s": round((seen - 1) / span, 1) if seen > 1 else 0.0,
        "seconds_including_startup": round(last - started, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--bootstrap",
        default=os.environ.get("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
    )
    ap.add_argument("--scenario", choices=["instant", "slow", "all"], default="all")
    ap.add_argument("--instant-records", type=int, default=30_000)
    ap.add_argument("--slow-records", type=int, default=2_400)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--partitions", type=int, default=12)
    ap.add_argument("--keys", type=int, default=500)
    ap.add_argument("--out", default=str(REPO / "bench" / "out" / "runtime.json"))
    args = ap.parse_args()
    results = []
    if args.scenario in ("instant", "all"):
        results.append(
            run(
                args.bootstrap,
                "instant",
                args.instant_records,
                0.0,
                args.concurrency,
                args.workers,
                args.partitions,
                args.keys,
            )
        )
    if args.scenario in ("slow", "all"):
        results.append(
            run(
                args.bootstrap,
                "200ms",
                args.slow_records,
                200.0,
                args.concurrency,
                args.workers,
                args.partitions,
                args.keys,
            )
        )
    for r in results:
        per_s = r["workers"] * r["concurrency"] / (r["handler_delay_ms"] or 1) * 1000
        bound = f" (bound {per_s:.0f}/s)" if r["handler_delay_ms"] else ""
        print(
            f"{r['scenario']:>8}: {r['records_per_s']:>9.1f} records/s{bound}  "
            f"[{r['received']}/{r['records']} in {r['seconds_first_to_last']} s, "
            f"workers={r['workers']} concurrency={r['concurrency']}]"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
