"""`factstream dlq`: list and show dead letters written with the runtime's own headers, and
redrive them to their original topic with their original key, each exactly once."""

from __future__ import annotations

import time

from typer.testing import CliRunner

from streams.cli.main import app
from streams.errors import PoisonError
from streams.ops.dlq import REDRIVEN_FROM_HEADER
from streams.runtime.dlq import H_EXC_CLASS, dead_letter
from streams.runtime.records import Record
from streams.settings import Settings
from tests.support.fixtures import Tenant
from tests.support.kafka import cli_env, consume_all, episode_json, produce

PARTITIONS = 3


def put_dead_letter(
    settings: Settings, key: str, value: bytes, exc: BaseException, reason: str
) -> tuple[int, int]:
    """What a worker of the extract stage writes when it gives up on a record."""
    original = Record(
        topic=settings.topic("episodes.completed"), partition=1, offset=42, key=key.encode(),
        value=value, headers=(("trace-id", b"t-1"),), timestamp_ms=1_767_225_600_000,
    )  # fmt: skip
    (out,) = dead_letter(
        original, exc, dlq_topic=settings.dlq_topic("extract"), group="factstream-extract",
        stage="extract", attempt=1, reason=reason,
    )  # fmt: skip
    (landed,) = produce(
        settings, out.topic, [{"key": out.key, "value": out.value, "headers": list(out.headers)}]
    )
    return landed


def test_list_show_and_redrive_once(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": tenant_topics.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": tenant_topics.topic_prefix,
    }
    runner = CliRunner()
    other = f"{tenant.dataset}:other"
    fixed = episode_json(tenant.dataset, tenant.project_id, "ep-fixed").encode()
    p1, o1 = put_dead_letter(
        tenant_topics, tenant.key, fixed, PoisonError("prompt too long for the model"), "poison"
    )
    p2, o2 = put_dead_letter(
        tenant_topics,
        other,
        b"\xff\xfe not utf-8",
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        "not_utf8",
    )

    listed = runner.invoke(app, ["dlq", "list", "extract"], env=env)
    assert listed.exit_code == 0, listed.output
    assert "2 dead letter(s)" in listed.output
    assert f"{p1}/{o1}" in listed.output and "PoisonError: prompt too long" in listed.output
    only_tenant = runner.invoke(app, ["dlq", "list", "extract", "--tenant", tenant.key], env=env)
    assert "1 dead letter(s)" in only_tenant.output
    assert "prompt too long" in only_tenant.output and "UnicodeDecodeError" not in (
        only_tenant.output
    )
    by_reason = runner.invoke(app, ["dlq", "list", "extract", "--reason", "unicode"], env=env)
    assert other in by_reason.output and tenant.key not in by_reason.output

    shown = runner.invoke(app, ["dlq", "show", "extract", f"{p1}/{o1}"], env=env)
    assert shown.exit_code == 0, shown.output
    assert H_EXC_CLASS in shown.output and "streams.errors.PoisonError" in shown.output
    assert '"episode_id": "ep-fixed"' in shown.output and "payload (json" in shown.output
    binary = runner.invoke(app, ["dlq", "show", "extract", f"{p2}/{o2}"], env=env)
    assert "binary (not UTF-8)" in binary.output and "ff fe 20 6e 6f 74" in binary.output

    redriven = runner.invoke(app, ["dlq", "redrive", "extract", "--tenant", tenant.key], env=env)
    assert redriven.exit_code == 0, redriven.output
    assert "redrove 1 dead letter(s)" in redriven.output
    input_topic = tenant_topics.topic("episodes.completed")
    (back,) = consume_all(tenant_topics, input_topic, 1)
    assert back.key == tenant.key and back.value == fixed
    assert back.headers["trace-id"] == b"t-1" and H_EXC_CLASS not in back.headers
    assert back.headers[REDRIVEN_FROM_HEADER] == (
        f"{tenant_topics.dlq_topic('extract')}/{p1}/{o1}".encode()
    )

    # Again, unfiltered: only the other tenant's letter is still to send.
    again = runner.invoke(app, ["dlq", "redrive", "extract"], env=env)
    assert again.exit_code == 0, again.output
    assert "redrove 1 dead letter(s)" in again.output and "1 already redriven" in again.output
    third = runner.invoke(app, ["dlq", "redrive", "extract"], env=env)
    assert "redrove 0 dead letter(s)" in third.output and "2 already redriven" in third.output
    records = consume_all(tenant_topics, input_topic, 2)
    assert sorted(r.key or "" for r in records) == sorted([tenant.key, other])

    # An address with no dead letter is said so at once, for show and for redrive.
    for address, says in [(f"{PARTITIONS + 5}/0", f"has no partition {PARTITIONS + 5}"),
                          (f"{p1}/{o1 + 100}", "no dead letter at")]:  # fmt: skip
        started = time.monotonic()
        for command in (["show", "extract", address], ["redrive", "extract", "--record", address]):
            nowhere = runner.invoke(app, ["dlq", *command], env=env)
            assert nowhere.exit_code == 1, nowhere.output
            assert says in nowhere.output
        assert time.monotonic() - started < 20  # no reader waiting for records never there


def test_a_dead_letter_over_900_kb_holds_the_original_and_redrives_it(
    tenant_topics: Settings, tenant: Tenant
) -> None:
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": tenant_topics.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": tenant_topics.topic_prefix,
    }
    original = b'{"dataset": "' + tenant.dataset.encode() + b'", "note": "' + b"z" * 950_000 + b'"}'
    record = Record(
        topic=tenant_topics.topic("episodes.completed"), partition=0, offset=7,
        key=tenant.key.encode(), value=original, timestamp_ms=1_767_225_600_000,
    )  # fmt: skip
    parts = dead_letter(
        record, PoisonError("too long"), dlq_topic=tenant_topics.dlq_topic("extract"),
        group="factstream-extract", stage="extract", attempt=1, reason="invalid_schema",
    )  # fmt: skip
    assert len(parts) == 2
    landed = produce(
        tenant_topics, parts[0].topic,
        [{"key": p.key, "value": p.value, "headers": list(p.headers)} for p in parts],
    )  # fmt: skip
    p, o = landed[0]
    runner = CliRunner()
    listed = runner.invoke(app, ["dlq", "list", "extract"], env=env)
    assert "1 dead letter(s)" in listed.output, listed.output
    shown = runner.invoke(app, ["dlq", "show", "extract", f"{p}/{o}"], env=env)
    assert f"{len(original)} bytes" in shown.output
    redriven = runner.invoke(app, ["dlq", "redrive", "extract"], env=env)
    assert "redrove 1 dead letter(s)" in redriven.output, redriven.output
    (back,) = consume_all(tenant_topics, tenant_topics.topic("episodes.completed"), 1)
    assert back.value == original and back.key == tenant.key


def test_a_letter_keyed_by_another_tenant_is_not_redriven_to_come_back_again(
    tenant_topics: Settings, tenant: Tenant
) -> None:
    """Sent as it is, a worker dead-letters it again (key_mismatch), and the next
    unfiltered redrive would send that new letter, and so on."""
    env = cli_env(tenant_topics)
    value = episode_json(tenant.dataset, tenant.project_id, "ep-x").encode()
    other = f"{tenant.dataset}:other"
    p, o = put_dead_letter(tenant_topics, other, value, PoisonError("key"), "key_mismatch")
    redriven = CliRunner().invoke(app, ["dlq", "redrive", "extract"], env=env)
    assert redriven.exit_code == 0, redriven.output
    assert "redrove 0 dead letter(s)" in redriven.output
    assert (
        f"not redriven {p}/{o}: its key '{other}' is not the tenant its payload names"
        f" '{tenant.key}': it would be dead-lettered again (key_mismatch)"
    ) in " ".join(redriven.output.split())
    assert consume_all(tenant_topics, tenant_topics.topic("episodes.completed"), 1, 3.0) == []
