"""Consumer lag per partition from librdkafka's statistics callback (``stats_cb``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP

log = logging.getLogger("streams.runtime.kafka")


def export_lag(
    raw: str, live: Mapping[TP, int], committed: Mapping[TP, int], metrics: WorkerMetrics
) -> None:
    """Lag of each assigned partition: its last stable offset minus what this worker
    committed (or the group's committed offset, or the log start). Best effort."""
    try:
        stats = json.loads(raw)
        for topic, t in stats.get("topics", {}).items():
            for pid, p in t.get("partitions", {}).items():
                key = (topic, int(pid))
                if key not in live:
                    continue
                end = p.get("ls_offset", -1)
                base = committed.get(key, p.get("committed_offset", -1))
                if base < 0:
                    base = p.get("lo_offset", -1)
                if end >= 0 and base >= 0:
                    metrics.lag(topic, key[1], max(0, end - base))
    except Exception:  # stats are best effort
        log.debug("bad stats", exc_info=True)
