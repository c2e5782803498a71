"""Kafka's own command-line tools, run with ``java`` from the jars of ``deploy/kafka/pom.xml``.

``describe_groups`` is ``kafka-consumer-groups.sh --describe`` (the class it runs,
``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand``), parsed into rows: what an
operator sees when checking our groups with the tool they already run. ``keda_replicas``
is the KEDA Kafka scaler's arithmetic on the same numbers.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from streams.dev import kafka_local
from streams.settings import Settings

CONSUMER_GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class GroupRow:
    group: str
    topic: str
    partition: int
    current: int | None  # None: "-" (the group never committed this partition)
    log_end: int
    lag: int | None


def kafka_libs() -> Path:
    """The jars (resolved by Maven on first use, like `factstream dev up` does)."""
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.skip("Kafka's tools need java and mvn on PATH")
    libs = Path(Settings().dev_kafka_libs)
    libs = libs if libs.is_absolute() else REPO / libs
    return kafka_local.ensure_jars(libs.resolve(), REPO / "deploy" / "kafka")


def _number(text: str) -> int | None:
    return None if text == "-" else int(text)


def describe_groups(bootstrap: str, groups: Sequence[str]) -> list[GroupRow]:
    """``ConsumerGroupCommand --describe`` for ``groups``; fails on any error it prints (the
    tool exits 0 even when a group does not exist)."""
    cmd = ["java", "-Xmx256m", "-cp", f"{kafka_libs()}/*", CONSUMER_GROUP_COMMAND]
    cmd += ["--bootstrap-server", bootstrap, "--describe"]
    for group in groups:
        cmd += ["--group", group]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "Error:" not in output, output[-3000:]
    rows: list[GroupRow] = []
    for line in done.stdout.splitlines():
        cells = line.split()
        if len(cells) < 6 or cells[0] == "GROUP" or cells[0] not in groups:
            continue
        group, topic, partition, current, log_end, lag = cells[:6]
        rows.append(
            GroupRow(group, topic, int(partition), _number(current), int(log_end), _number(lag))
        )
    return rows


def keda_replicas(rows: Sequence[GroupRow], lag_threshold: int) -> int:
    """Replicas the KEDA Kafka scaler asks for from lag: ceil(total lag / lagThreshold),
    where a partition without a committed offset counts its whole log-end offset
    (``offsetResetPolicy: earliest``, as in deploy/k8s)."""
    total = sum(r.log_end if r.current is None else max(0, r.log_end - r.current) for r in rows)
    return math.ceil(total / lag_threshold)
