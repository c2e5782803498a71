"""CLI conventions every command keeps: `--version`; exit 2 for a usage error, found before
any service is contacted; exit 1 from `lag` when nothing exists to read; a help text for
every argument and option, with the stage names listed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from streams.cli.main import app
from streams.pipeline import STAGES
from streams.settings import Settings
from tests.support.cli import closed_port
from tests.support.kafka import cli_env

USAGE_ERRORS = [
    ["--bogus"],
    ["topics", "lst"],
    ["worker", "nope"],
    ["worker", "write", "--log-level", "loud"],
    ["replay", "nope", "--to-earliest"],
    ["replay", "extract"],
    ["replay", "extract", "--to-earliest", "--to-latest"],
    ["replay", "extract", "--to-datetime", "yesterday"],
    ["replay", "extract", "--by-duration", "1h"],
    ["replay", "extract", "--to-offset", "-1"],
    ["replay", "extract", "--to-earliest", "--partitions", "a,b"],
    ["replay", "judge", "--to-earliest", "--reprocess"],
    ["replay", "extract", "--to-earliest", "--uncommitted-from-earliest"],
    ["lag", "--stage", "nope"],
    ["lag", "--group", "g"],
    ["lag", "--stage", "extract", "--group", "g", "--group-prefix", "p"],
    ["lag", "--watch", "0"],  # was a busy loop asking the cluster as fast as it answered
    ["lag", "--watch", "-1"],  # these three printed once, then a traceback
    ["lag", "--watch", "nan"],
    ["lag", "--watch", "inf"],
    ["lag", "--serve", "70000"],  # a traceback from bind()
    ["lag", "--serve", "-1"],
    ["worker", "write", "--metrics-port", "70000"],
    ["worker", "write", "--concurrency", "0"],
    ["console", "--port", "70000"],
    ["console", "--port", "-5"],
    ["dlq", "list", "nope"],
    ["dlq", "show", "extract", "x"],
    ["dlq", "redrive", "extract", "--record", "1-2"],
    ["facts", "d", "p", "--history", "--as-of", "2026-01-01"],
    ["facts", "d", "p", "--valid-at", "soon"],
    ["trace", "e1", "--dataset", "d"],
    # names no tenant that can exist: an error, not "0 rows"
    ["facts", "", "p"],
    ["facts", "a:b", "p"],
    ["facts", "d", "x y", "--history"],
    ["search", "d\u00e9j\u00e0", "p", "hello"],
    ["trace", "e1", "--dataset", "d:x", "--project", "p"],
    ["publish", "/nonexistent/episodes.jsonl"],
    ["publish", "/"],
    ["sweep", "--json"],
    ["dev", "down", "--only", "redis"],
    ["demo", "--provider", "claude"],
]


@pytest.fixture(scope="module")
def nothing_up() -> dict[str, str]:
    """Services that do not answer: a usage error must be reported before any is asked."""
    return {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{closed_port()}",
        "FACTSTREAM_DATABASE_URL": "postgresql://postgres:@/postgres?host=/nonexistent",
    }


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_usage_errors_exit_2_before_anything_is_contacted(
    args: list[str], nothing_up: dict[str, str]
) -> None:
    result = CliRunner().invoke(app, args, env=nothing_up)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "unreachable" not in result.output


@pytest.mark.parametrize(
    ("path", "says"),
    [("/nonexistent/episodes.jsonl", "no such file: '/nonexistent/episodes.jsonl'"),
     ("/", "'/' is a directory, not a JSONL file of events")],
)  # fmt: skip
def test_publish_says_why_it_cannot_read_its_file(
    path: str, says: str, nothing_up: dict[str, str]
) -> None:
    result = CliRunner().invoke(app, ["publish", path], env=nothing_up)
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())


@pytest.mark.parametrize("url", [None, ""], ids=["unset", "empty"])
def test_no_database_configured_is_a_setting_to_fix(url: str | None) -> None:
    env = {"FACTSTREAM_DATABASE_URL": url, "DATABASE_URL": None}
    for args in (["migrate"], ["facts", "d", "p"], ["trace", "e1"], ["sweep", "--once"]):
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 2, result.output
        assert "no database configured: set FACTSTREAM_DATABASE_URL" in result.output


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"factstream {version('factstream')}\n"


def test_lag_fails_when_no_topic_exists_and_passes_when_one_does(
    tenant_settings: Settings, create_topics: Any
) -> None:
    env = cli_env(tenant_settings)  # a fresh prefix: none of its topics exists yet
    runner = CliRunner()

    missing = runner.invoke(app, ["lag"], env=env)
    assert missing.exit_code == 1, missing.output
    assert "none of the topics exists" in missing.output
    assert "factstream topics create" in missing.output
    as_json = runner.invoke(app, ["lag", "--json"], env=env)
    assert as_json.exit_code == 1 and '"total_lag": 0' in as_json.stdout  # still the document

    create_topics(tenant_settings, partitions=1)
    present = runner.invoke(app, ["lag", "--stage", "extract"], env=env)
    assert present.exit_code == 0, present.output


def leaf_commands() -> Iterator[tuple[list[str], Any]]:
    def walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
        subcommands = getattr(command, "commands", None)
        if not subcommands:
            yield path, command
            return
        for name, sub in subcommands.items():
            yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


def test_every_command_argument_and_option_has_a_help_text() -> None:
    missing = [
        f"{' '.join(path)} {param.name}"
        for path, command in leaf_commands()
        for param in command.params
        if not (getattr(param, "help", None) or "").strip()
    ]
    missing += [" ".join(path) for path, command in leaf_commands() if not command.help]
    assert missing == []


@pytest.mark.parametrize(
    "args", [["worker"], ["replay"], ["lag"], ["dlq", "list"], ["dlq", "show"], ["dlq", "redrive"]]
)
def test_stage_choices_are_listed_in_help(args: list[str]) -> None:
    shown = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "250"}).output
    listed = re.search(r"(summarize ?\| ?[a-z| ]+)", shown)
    assert listed is not None, shown
    assert [s.strip() for s in listed.group(1).split("|")] == list(STAGES)


@pytest.mark.parametrize(
    ("args", "named"),
    [(["facts", "a:b", "p"], "dataset"), (["facts", "d", "-", "--json"], "project"),
     (["search", "d", "p q", "hello"], "project"),
     (["trace", "e1", "--dataset", " d", "--project", "p"], "--dataset")],
)  # fmt: skip
def test_a_tenant_id_that_cannot_exist_is_named_as_the_error(
    args: list[str], named: str, nothing_up: dict[str, str]
) -> None:
    result = CliRunner().invoke(app, args, env={**nothing_up, "COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{named}'" in result.output
    assert "is not a tenant id" in result.output
