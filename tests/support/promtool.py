"""`promtool check metrics` (Debian package `prometheus`) on a scrape, when installed.

kafka_exporter's names end in ``_sum`` on gauges (``kafka_consumergroup_lag_sum``,
``kafka_consumergroup_current_offset_sum``), which promtool's naming lint flags. Our lag
exporter keeps those names on purpose (dashboards and alerts written for kafka_exporter
work unchanged), so exactly those two findings are accepted; anything else fails.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

KAFKA_EXPORTER_NAMES = ("kafka_consumergroup_lag_sum", "kafka_consumergroup_current_offset_sum")
_ACCEPTED = {
    f'{name} non-histogram and non-summary metrics should not have "_sum" suffix'
    for name in KAFKA_EXPORTER_NAMES
}

needs_promtool = pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool not installed (Debian: prometheus)"
)


def findings(text: bytes) -> list[str]:
    """What promtool objects to in ``text`` (Prometheus text format), bar the accepted."""
    done = subprocess.run(
        ["promtool", "check", "metrics"], input=text, capture_output=True, timeout=60, check=False
    )
    lines = (done.stdout + done.stderr).decode().splitlines()
    found = [line.strip() for line in lines if line.strip() and line.strip() not in _ACCEPTED]
    if done.returncode not in (0, 3) or (done.returncode == 3 and not found and not lines):
        found.append(f"promtool exited {done.returncode}")
    return found
