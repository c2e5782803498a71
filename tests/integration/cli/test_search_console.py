"""`factstream search` and `factstream console` as an operator runs them, on real Postgres."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from streams.cli.main import app
from streams.model.fakes.scripted import KeyedEmbedder
from tests.support.db import TEST_EMBEDDING_DIM as DIM
from tests.support.events import new_tenant

DEMO_MODEL = "streams.model.fakes.demo:create_models"  # its embedder: KeyedEmbedder
FACTSTREAM = [str(Path(sys.executable).with_name("factstream"))]


@pytest.fixture(scope="module")
async def memory(database_url: str, pool: Any, module_db_url: str) -> dict[str, Any]:
    tenant = new_tenant()
    embed = KeyedEmbedder(DIM)
    for s, p, o, quote in [
        ("user", "drives", "honda civic", "I drive a Honda Civic"),
        ("user", "lives in", "oslo", "I live in Oslo"),
        ("user", "likes", "[bold red]rich markup[/bold red]", "[link=x]click[/link]"),
    ]:
        await pool.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " confidence, source_quote, episode_id, embedding) VALUES ($1, $2, $3, $4, $5,"
            " 'literal', 0.9, $6, 'e1', $7)",
            *tenant, s, p, o, quote, embed.vector(f"{s} {p} {o}"),
        )  # fmt: skip
    env = {"FACTSTREAM_DATABASE_URL": module_db_url, "FACTSTREAM_EMBEDDING_DIM": str(DIM),
           "FACTSTREAM_MODEL_PROVIDER": DEMO_MODEL}  # fmt: skip
    return {"tenant": tenant, "env": env}


def test_search_prints_the_best_fact_first_with_its_provenance(memory: dict[str, Any]) -> None:
    dataset, project = memory["tenant"]
    result = CliRunner().invoke(
        app, ["search", dataset, project, "user drives honda civic", "--json"], env=memory["env"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    best = answer["results"][0]
    assert best["fact"]["object"] == "honda civic"
    assert best["vector_rank"] == 1 and best["similarity"] == pytest.approx(1.0)
    assert best["provenance"]["source_quote"] == "I drive a Honda Civic"
    assert answer["embedding_error"] is None


def test_search_prints_stored_text_as_text_not_markup(memory: dict[str, Any]) -> None:
    dataset, project = memory["tenant"]
    result = CliRunner().invoke(app, ["search", dataset, project, "rich markup"], env=memory["env"])
    assert result.exit_code == 0, result.output
    assert "[bold red]rich markup[/bold red]" in result.stdout
    assert "[link=x]click[/link]" in result.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [(["-k", "0"], "-k"), (["--valid-at", "soon"], "ISO 8601"), (["--min-confidence", "3"], "")],
)
def test_search_refuses_bad_options(memory: dict[str, Any], args: list[str], says: str) -> None:
    dataset, project = memory["tenant"]
    result = CliRunner().invoke(app, ["search", dataset, project, "civic", *args],
                                env=memory["env"])  # fmt: skip
    assert result.exit_code == 2
    assert says in result.output


def test_console_serves_on_loopback_and_stops_on_sigterm(memory: dict[str, Any]) -> None:
    env = os.environ | memory["env"]
    proc = subprocess.Popen(
        [*FACTSTREAM, "console", "--port", "0"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Playground: http://127.0.0.1:"), line
        base = line.split()[1].rstrip("/")
        dataset, project = memory["tenant"]
        with urllib.request.urlopen(f"{base}/api/tenants/{dataset}/{project}/facts") as answer:
            facts = json.load(answer)["facts"]
        assert {f["object"] for f in facts} >= {"honda civic", "oslo"}
        with urllib.request.urlopen(f"{base}/") as answer:
            assert "Episodes" in answer.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 0


def test_console_refuses_to_listen_beyond_loopback_without_a_token(
    memory: dict[str, Any],
) -> None:
    started = time.monotonic()
    result = CliRunner().invoke(app, ["console", "--host", "0.0.0.0"], env=memory["env"])
    assert result.exit_code == 2
    assert "FACTSTREAM_API_TOKEN" in result.output
    assert time.monotonic() - started < 10


def test_console_on_a_taken_port_is_one_clear_line(memory: dict[str, Any]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = os.environ | memory["env"]
        done = subprocess.run([*FACTSTREAM, "console", "--port", str(port)], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1
    assert f"could not listen on 127.0.0.1:{port}" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr, done.stderr


@pytest.mark.parametrize("command", [["search", "demo", "alice", "civic"], ["console"]])
def test_an_unreachable_postgres_is_one_clear_line(command: list[str]) -> None:
    env = {"FACTSTREAM_DATABASE_URL": "postgresql://postgres:@/nodb?host=/nonexistent",
           "FACTSTREAM_MODEL_PROVIDER": DEMO_MODEL}  # fmt: skip
    result = CliRunner().invoke(app, command, env=env)
    assert result.exit_code == 1
    assert "Postgres at postgresql://postgres:@/nodb?host=/nonexistent is unreachable (" in (
        result.output
    )
    assert "Traceback" not in result.output
