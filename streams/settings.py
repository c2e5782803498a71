"""Every setting of factstream, read once at the entry point and passed down.

Environment variables carry the prefix ``FACTSTREAM_`` (``FACTSTREAM_FACT_DEDUP_THRESHOLD=0.93``).
Thresholds belong to the embedding model, so they are settings, not constants.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from streams.event_fields import MAX_OBJECT_CHARS, MAX_QUOTE_CHARS

# Length settings that cap what an event carries: none may exceed the event's own limit,
# or every extraction longer than the event allows would fail its validation.
_EVENT_LIMITS = {"object_max_chars": MAX_OBJECT_CHARS, "quote_max_chars": MAX_QUOTE_CHARS}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="FACTSTREAM_", frozen=True, extra="ignore", populate_by_name=True
    )

    # --- infrastructure -------------------------------------------------------------
    kafka_bootstrap_servers: str = "127.0.0.1:9092"
    # librdkafka passthrough for SASL/SSL and friends, e.g.
    # FACTSTREAM_KAFKA_CLIENT_CONFIG='{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}'
    kafka_client_config: dict[str, str] = Field(default_factory=dict)
    kafka_sasl_username: str | None = None
    kafka_sasl_password: SecretStr | None = None
    database_url: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("FACTSTREAM_DATABASE_URL", "DATABASE_URL")
    )
    # Where `factstream dev up` keeps the jars broker, the embedded Postgres, pid and log files.
    dev_dir: str = ".cache/dev"
    # Where Maven copies the Kafka jars for the Docker-free broker (shared by every dev dir).
    dev_kafka_libs: str = ".cache/kafka/libs"
    dev_kafka_port: int = Field(default=9092, ge=1, le=65535)
    dev_controller_port: int = Field(default=9093, ge=1, le=65535)
    dev_pg_port: int = Field(default=5432, ge=1, le=65535)  # compose only; pgserver uses a socket
    # "auto": docker compose when a Docker engine answers, else the jars broker + pgserver.
    dev_docker: Literal["auto", "always", "never"] = "auto"

    # --- topics -----------------------------------------------------------------------
    topic_prefix: str = "memory."
    topic_partitions: int = Field(default=12, ge=1)
    topic_replication: int = Field(default=1, ge=1)
    # The input topic keeps history long enough to replay (default 30 days; -1 = forever).
    input_retention_ms: int = 30 * 24 * 3600 * 1000
    stage_retention_ms: int = 7 * 24 * 3600 * 1000

    # --- pipeline thresholds (seed defaults) --------------------------------------------
    entity_resolution_threshold: float = Field(default=0.88, ge=0, le=1)
    fact_dedup_threshold: float = Field(default=0.95, ge=0, le=1)
    contradiction_band_min: float = Field(default=0.80, ge=0, le=1)
    # The seed names retrievalMinConfidence without a value; 0.5 is our choice.
    retrieval_min_confidence: float = Field(default=0.5, ge=0, le=1)
    max_retries: int = Field(default=3, ge=0)
    claim_timeout_s: float = Field(default=600.0, gt=0)
    sweep_interval_s: float = Field(default=120.0, gt=0)
    # A tenant with more searchable vectors than this gets its own HNSW index, built by the
    # sweep (streams/store/tenant_indexes.py); searches of smaller ones are exact scans.
    vector_index_min_rows: int = Field(default=2000, ge=1)
    context_entity_names: int = Field(default=200, ge=0)
    context_recent_facts: int = Field(default=100, ge=0)
    max_facts_per_episode: int = Field(default=12, ge=1)
    object_max_chars: int = Field(default=500, ge=1)
    quote_max_chars: int = Field(default=200, ge=1)
    embedding_dim: int = Field(default=768, ge=1, le=16000)

    # --- models -----------------------------------------------------------------------
    # "gemini", "openai", "replay", "record", or "package.module:factory" for your own.
    model_provider: str = "gemini"
    cassette_path: str = "streams/demo/data/cassette.jsonl"
    # What "record" wraps: "gemini", "openai", or a "package.module:factory" (the demo
    # records its scripted model this way: streams.model.fakes.demo:create_models).
    record_inner_provider: str = "gemini"
    gemini_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("FACTSTREAM_GEMINI_API_KEY", "GEMINI_API_KEY")
    )
    gemini_base_url: str | None = None
    # The OpenAI-compatible provider (OpenAI, Azure, vLLM, Ollama, llama.cpp server). Its
    # model names are extract_model, judge_model, summarize_model and embed_model, which
    # must then be set (their defaults are Gemini's).
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("FACTSTREAM_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("FACTSTREAM_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    # The embeddings endpoint when it is another server (vLLM serves one model per server);
    # unset: openai_base_url. Same API key.
    openai_embed_base_url: str | None = None
    # "auto": the least reasoning each model takes (streams/model/openai/reasoning.py);
    # "omit": send no reasoning_effort; any other value is sent as it is.
    openai_reasoning_effort: Literal[
        "auto", "omit", "none", "minimal", "low", "medium", "high", "xhigh"
    ] = "auto"
    # Send `dimensions` (= embedding_dim) with embedding requests: "auto" sends it only to
    # OpenAI's text-embedding-3 models (other models have one size; some servers refuse it).
    openai_send_dimensions: Literal["auto", "always", "never"] = "auto"
    extract_model: str = "gemini-2.5-flash"
    judge_model: str = "gemini-2.5-flash"
    summarize_model: str = "gemini-2.5-flash-lite"
    embed_model: str = "gemini-embedding-001"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_attempts: int = Field(default=4, ge=1)
    llm_backoff_base_s: float = Field(default=0.5, ge=0)
    llm_backoff_max_s: float = Field(default=20.0, ge=0)

    # --- workers ----------------------------------------------------------------------
    worker_concurrency: int = Field(default=32, ge=1)
    shutdown_deadline_s: float = Field(default=30.0, gt=0)
    # A busy worker holds a transaction open this long for more records; a Kafka-to-Kafka
    # worker commits from commit_quiet_ms on once none is in flight or none has finished
    # for that long, a sink once it holds outputs (streams/runtime/cadence.py).
    commit_interval_ms: int = Field(default=400, ge=1)
    commit_quiet_ms: int = Field(default=50, ge=1)
    # A consumer of the episodes topic lets records gather this long before a fetch returns
    # them (0: each as it comes). Applications publish record by record, so without it every
    # episode is a fetch request and a pass of the worker's loop (streams/runtime/config.py).
    source_fetch_wait_ms: int = Field(default=100, ge=0, le=500)
    max_poll_interval_ms: int = Field(default=300_000, ge=1000)
    session_timeout_ms: int = Field(default=45_000, ge=1000)
    transient_max_attempts: int = Field(default=6, ge=1)
    # ...and for at least this long since the first attempt (both must hold), so a
    # Postgres restart or a broker failover is ridden out instead of dead-lettered.
    transient_min_retry_s: float = Field(default=60.0, ge=0)
    metrics_port: int = Field(default=0, ge=0, le=65535)  # 0: no HTTP server
    # Where the metrics and health server listens: all interfaces (containers), "127.0.0.1"
    # to keep it on the machine, "::" for IPv6.
    metrics_bind_address: str = "0.0.0.0"
    # A worker whose Kafka transactional call has not returned after this long exits (code
    # 3) to be restarted (librdkafka#5456: such calls can hang after a broker restart). 0: off.
    kafka_txn_watchdog_s: float = Field(default=60.0, ge=0)
    # A consumed record whose value is larger than this is poison (dead-lettered unread).
    max_record_bytes: int = Field(default=1_000_000, ge=1)
    writer_lock_timeout_ms: int = Field(default=10_000, ge=1)
    writer_statement_timeout_ms: int = Field(default=30_000, ge=1)

    # --- read API and Playground (`factstream console`) -------------------------------
    # Loopback by default; any other address needs api_token (the server refuses to start
    # without one), and a set token is required on every request wherever it binds.
    api_bind_address: str = "127.0.0.1"
    api_port: int = Field(default=8765, ge=0, le=65535)
    api_token: SecretStr | None = None
    # Results of one search when the caller gives no k, and the most it may ask for.
    search_default_k: int = Field(default=10, ge=1)
    search_max_k: int = Field(default=100, ge=1)
    # A search's vector half leaves out facts less similar than this (cosine) to the query:
    # nearest is not near when nothing is. It belongs to the embedding model, as the
    # thresholds above do.
    search_min_similarity: float = Field(default=0.0, ge=-1, le=1)

    @field_validator(*_EVENT_LIMITS)
    @classmethod
    def _within_the_event_limit(cls, value: int, info: Any) -> int:
        limit = _EVENT_LIMITS[info.field_name]
        if value > limit:
            raise ValueError(
                f"{info.field_name}={value} is over {limit}, the most a fact event carries"
                " (streams/event_fields.py): every longer claim would fail validation; use at most"
                f" {limit}"
            )
        return value

    def topic(self, name: str) -> str:
        """Full topic name for a short one: ``topic("episodes.completed")``."""
        return f"{self.topic_prefix}{name}"

    def dlq_topic(self, stage: str) -> str:
        return self.topic(f"dlq.{stage}")

    @cached_property
    def kafka_common(self) -> dict[str, Any]:
        """Client config shared by producers, consumers and admin clients."""
        conf: dict[str, Any] = {"bootstrap.servers": self.kafka_bootstrap_servers}
        if self.kafka_sasl_username is not None:
            conf["sasl.username"] = self.kafka_sasl_username
        if self.kafka_sasl_password is not None:
            conf["sasl.password"] = self.kafka_sasl_password.get_secret_value()
        conf.update(self.kafka_client_config)
        return conf

    def require_database_url(self) -> str:
        if self.database_url is None:
            raise RuntimeError(
                "no database configured: set FACTSTREAM_DATABASE_URL (or run `factstream dev up`"
                " and export what it prints)"
            )
        return self.database_url.get_secret_value()


# librdkafka refuses a record whose key, value and headers together pass message.max.bytes
# (default 1,000,000), so a value at the record limit needs room for the rest; a redriven
# record may be as large as a topic takes by default (1 MiB).
BROKER_DEFAULT_MAX_BYTES = 1_048_588
_ROOM_FOR_KEY_AND_HEADERS = 65_536


def producer_max_bytes(max_record_bytes: int) -> int:
    """message.max.bytes of a producer whose values may reach ``max_record_bytes``."""
    return max(max_record_bytes, BROKER_DEFAULT_MAX_BYTES) + _ROOM_FOR_KEY_AND_HEADERS


def load_settings(**overrides: Any) -> Settings:
    """Read the environment once; entry points call this and pass the result down."""
    return Settings(**overrides)
