"""Every topic factstream uses, and `factstream topics create|list`.

:func:`all_topics` is the one list of topics; workers, tests and the CLI reuse it.
``create`` is idempotent: existing topics keep their partition count (adding partitions
would move tenants' keys to other partitions and break per-tenant order), but their
``retention.ms`` is set to what the settings say.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # no __all__ there
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)

from streams import pipeline
from streams.kafka.client import admin_client
from streams.settings import Settings


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    replication: int
    retention_ms: int

    def config(self) -> dict[str, str]:
        return {"retention.ms": str(self.retention_ms)}


@dataclass(frozen=True)
class TopicResult:
    name: str
    action: str  # "created" | "exists"
    note: str = ""


@dataclass(frozen=True)
class TopicInfo:
    name: str
    partitions: int | None  # None: missing on the broker
    retention_ms: int | None
    configured: bool  # in all_topics(settings)


def all_topics(settings: Settings) -> list[TopicSpec]:
    """The input topic, the four stage topics and one dead-letter topic per stage."""

    def spec(name: str, retention_ms: int) -> TopicSpec:
        return TopicSpec(name, settings.topic_partitions, settings.topic_replication, retention_ms)

    specs = [
        spec(
            settings.topic(name),
            settings.input_retention_ms
            if name == pipeline.EPISODES
            else settings.stage_retention_ms,
        )
        for name in pipeline.topics()
    ]
    specs += [spec(settings.dlq_topic(s), settings.stage_retention_ms) for s in pipeline.STAGES]
    return specs


def create_topics(
    settings: Settings, specs: list[TopicSpec] | None = None, *, timeout_s: float = 30.0
) -> list[TopicResult]:
    """Create the topics (all of them by default); existing ones get their retention set."""
    specs = all_topics(settings) if specs is None else specs
    admin = admin_client(settings)
    new = [
        NewTopic(
            s.name, num_partitions=s.partitions, replication_factor=s.replication, config=s.config()
        )
        for s in specs
    ]
    futures = admin.create_topics(new, operation_timeout=timeout_s, request_timeout=timeout_s)
    results: list[TopicResult] = []
    existing: list[TopicSpec] = []
    for s in specs:
        try:
            futures[s.name].result()
            results.append(TopicResult(s.name, "created"))
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise
            existing.append(s)
    if existing:
        results += _reconcile(admin, existing, timeout_s)
    _await_visible(admin, specs, timeout_s)
    order = {s.name: i for i, s in enumerate(specs)}
    return sorted(results, key=lambda r: order[r.name])


def _reconcile(admin: AdminClient, specs: list[TopicSpec], timeout_s: float) -> list[TopicResult]:
    metadata = admin.list_topics(timeout=timeout_s)
    resources = [
        ConfigResource(
            ResourceType.TOPIC,
            s.name,
            incremental_configs=[
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                for k, v in s.config().items()
            ],
        )
        for s in specs
    ]
    for future in admin.incremental_alter_configs(resources, request_timeout=timeout_s).values():
        future.result()
    out = []
    for s in specs:
        topic = metadata.topics.get(s.name)
        have = len(topic.partitions) if topic is not None else None
        note = ""
        if have is not None and have != s.partitions:
            note = f"has {have} partitions, settings say {s.partitions}; left as is"
        out.append(TopicResult(s.name, "exists", note))
    return out


def _await_visible(admin: AdminClient, specs: list[TopicSpec], timeout_s: float) -> None:
    """Wait until the broker serves the topics and their retention (KRaft propagates both
    asynchronously), so a `list` or a producer right after `create` sees what was made."""
    pending = {s.name: s for s in specs}
    deadline = time.monotonic() + timeout_s
    while pending and time.monotonic() < deadline:
        topics = admin.list_topics(timeout=timeout_s).topics
        known = [n for n in pending if n in topics and topics[n].error is None]
        if known:
            resources = [ConfigResource(ResourceType.TOPIC, n) for n in known]
            for resource, future in admin.describe_configs(resources).items():
                entry = future.result().get("retention.ms")
                wanted = pending[resource.name].config()["retention.ms"]
                if entry is not None and entry.value == wanted:
                    del pending[resource.name]
        if pending:
            time.sleep(0.1)


def describe_topics(settings: Settings, *, timeout_s: float = 30.0) -> list[TopicInfo]:
    """Configured topics plus any other topic under the prefix, as the broker sees them."""
    admin = admin_client(settings)
    metadata = admin.list_topics(timeout=timeout_s)
    configured = [s.name for s in all_topics(settings)]
    extra = sorted(
        name
        for name in metadata.topics
        if name.startswith(settings.topic_prefix) and name not in configured
    )
    present = [n for n in [*configured, *extra] if n in metadata.topics]
    retention: dict[str, int | None] = {}
    if present:
        resources = [ConfigResource(ResourceType.TOPIC, n) for n in present]
        futures = admin.describe_configs(resources, request_timeout=timeout_s)
        for resource, future in futures.items():
            entry = future.result().get("retention.ms")
            retention[resource.name] = int(entry.value) if entry and entry.value else None
    infos = []
    for name in [*configured, *extra]:
        topic = metadata.topics.get(name)
        partitions = len(topic.partitions) if topic is not None else None
        infos.append(TopicInfo(name, partitions, retention.get(name), name in configured))
    return infos


def delete_topics(settings: Settings, names: list[str], *, timeout_s: float = 30.0) -> None:
    """Delete topics (tests clean up with this); missing ones are ignored."""
    if not names:
        return
    admin = admin_client(settings)  # keep a reference until the futures are done
    futures = admin.delete_topics(names, operation_timeout=timeout_s)
    for future in futures.values():
        try:
            future.result()
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise


def format_retention(ms: int | None) -> str:
    if ms is None:
        return "?"
    if ms < 0:
        return "forever"
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"
