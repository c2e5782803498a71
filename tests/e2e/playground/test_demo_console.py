"""`factstream demo --console` as a user runs it: the demo, then the Playground on its
data at the URL it prints, with its workers still running, until Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from streams.store.databases import drop_database

ROOT = Path(__file__).resolve().parents[3]
MARK = "Playground on the demo's data: "


async def test_demo_console_serves_the_demos_data_until_ctrl_c(
    kafka_bootstrap: str, database_url: str
) -> None:
    db_name = f"fs_demo_console_{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if "GEMINI_API_KEY" not in k}
    env |= {"FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "FACTSTREAM_DATABASE_URL": database_url, "FACTSTREAM_API_PORT": "0"}  # fmt: skip
    factstream = Path(sys.executable).with_name("factstream")
    proc = subprocess.Popen(
        [str(factstream), "demo", "--console", "--db-name", db_name, "--timeout", "100"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 170
        while not any(line.startswith(MARK) for line in seen):
            line = proc.stdout.readline()
            assert line or proc.poll() is None, "".join(seen)[-4000:]
            seen.append(line)
            assert time.monotonic() < deadline, "".join(seen)[-4000:]
        base = seen[-1].removeprefix(MARK).split()[0].rstrip("/")
        assert base.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{base}/api/tenants/demo/alice/facts") as answer:
            live = {f["object"] for f in json.load(answer)["facts"]}
        assert live == {"anthropic", "data engineer", "bike"}
        with urllib.request.urlopen(f"{base}/api/pipeline/lag?fresh=true") as answer:
            lag = json.load(answer)
        assert all(g.startswith("demo.") for g in lag["groups"].values())  # this run's groups
        assert lag["samples"][-1]["lag"] == dict.fromkeys(lag["stages"], 0)
        with urllib.request.urlopen(f"{base}/tenants/demo/carol/episodes/carol-2") as answer:
            assert "subject_not_allowed" in answer.read().decode()
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        rest, _ = proc.communicate(timeout=90)
        await drop_database(database_url, db_name)
    output = "".join(seen) + rest
    assert proc.returncode == 0, output[-4000:]
    assert "stopped 7 processes (SIGTERM)" in rest
    assert "deleted this run's topics" in rest
