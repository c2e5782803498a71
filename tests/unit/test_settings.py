"""Settings: the seed's defaults, FACTSTREAM_ overrides, frozen, secrets hidden."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from streams.settings import Settings


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No FACTSTREAM_* (make test exports some), DATABASE_URL or GEMINI_API_KEY."""
    for name in list(os.environ):
        if name.startswith("FACTSTREAM_") or name in {"DATABASE_URL", "GEMINI_API_KEY"}:
            monkeypatch.delenv(name)
    return monkeypatch


def test_defaults_are_the_seed(clean_env: pytest.MonkeyPatch) -> None:
    s = Settings()
    assert s.entity_resolution_threshold == 0.88
    assert s.fact_dedup_threshold == 0.95
    assert s.contradiction_band_min == 0.80
    assert s.max_retries == 3
    assert s.claim_timeout_s == 600
    assert s.sweep_interval_s == 120
    assert s.context_entity_names == 200
    assert s.context_recent_facts == 100
    assert s.max_facts_per_episode == 12
    assert s.object_max_chars == 500
    assert s.quote_max_chars == 200
    assert s.database_url is None
    assert s.gemini_api_key is None


def test_infra_defaults(clean_env: pytest.MonkeyPatch) -> None:
    s = Settings()
    assert s.topic_prefix == "memory."
    assert s.topic_partitions == 12
    assert s.topic_replication == 1
    assert s.topic("episodes.completed") == "memory.episodes.completed"
    assert s.dlq_topic("extract") == "memory.dlq.extract"
    assert (s.dev_kafka_port, s.dev_controller_port, s.dev_pg_port) == (9092, 9093, 5432)
    assert s.dev_docker == "auto"
    assert "kafka_bootstrap_servers" not in s.model_fields_set  # `dev up` may start one


def test_env_overrides_with_prefix(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("FACTSTREAM_FACT_DEDUP_THRESHOLD", "0.93")
    clean_env.setenv("FACTSTREAM_MAX_RETRIES", "5")
    clean_env.setenv("FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS", "broker:29092")
    clean_env.setenv("FACTSTREAM_TOPIC_PREFIX", "x.")
    clean_env.setenv("FACTSTREAM_DEV_KAFKA_PORT", "39092")
    clean_env.setenv("FACT_DEDUP_THRESHOLD", "0.10")  # no prefix: ignored
    s = Settings()
    assert s.fact_dedup_threshold == 0.93
    assert s.max_retries == 5
    assert s.kafka_bootstrap_servers == "broker:29092"
    assert "kafka_bootstrap_servers" in s.model_fields_set
    assert s.topic("facts.judged") == "x.facts.judged"
    assert s.dev_kafka_port == 39092
    assert s.kafka_common["bootstrap.servers"] == "broker:29092"


def test_database_url_from_either_name(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DATABASE_URL", "postgresql://a@h/db")
    assert Settings().require_database_url() == "postgresql://a@h/db"
    clean_env.setenv("FACTSTREAM_DATABASE_URL", "postgresql://b@h/db")
    assert Settings().require_database_url() == "postgresql://b@h/db"


def test_invalid_values_are_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("FACTSTREAM_FACT_DEDUP_THRESHOLD", "1.5")
    with pytest.raises(ValidationError):
        Settings()


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_metrics_port_outside_tcp_ports_is_refused_at_start_up(
    clean_env: pytest.MonkeyPatch, port: str
) -> None:
    clean_env.setenv("FACTSTREAM_METRICS_PORT", port)
    with pytest.raises(ValidationError, match="metrics_port"):
        Settings()


def test_frozen(clean_env: pytest.MonkeyPatch) -> None:
    s = Settings()
    with pytest.raises(ValidationError):
        s.max_retries = 7  # type: ignore[misc]
    assert s.max_retries == 3


def test_secrets_are_not_shown(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("GEMINI_API_KEY", "gk-very-secret")
    s = Settings(
        database_url="postgresql://u:db-very-secret@h/db",
        kafka_sasl_password="sasl-very-secret",
    )
    shown = repr(s) + str(s) + str(s.model_dump())
    for secret in ("gk-very-secret", "db-very-secret", "sasl-very-secret"):
        assert secret not in shown
    assert s.gemini_api_key is not None
    assert s.gemini_api_key.get_secret_value() == "gk-very-secret"
    assert s.kafka_common["sasl.password"] == "sasl-very-secret"


@pytest.mark.parametrize(("name", "value", "limit"), [("object_max_chars", 501, 500),
                                                      ("quote_max_chars", 201, 200)])  # fmt: skip
def test_length_settings_past_the_event_limits_are_refused_at_start_up(
    name: str, value: int, limit: int
) -> None:
    with pytest.raises(ValidationError, match=f"{name}={value} is over {limit}"):
        Settings(**{name: value})
    assert getattr(Settings(**{name: limit}), name) == limit
