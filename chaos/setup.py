"""A run's setup: its fresh database and the environment of its processes."""

from __future__ import annotations

import os
from pathlib import Path

from chaos.procs import worker_env
from chaos.profile import EMBEDDING_DIM, MAX_RECORD_BYTES, Profile
from streams.settings import Settings
from streams.store.databases import create_database

CHAOS_MODEL = "streams.model.fakes.chaos:create_models"
SCRIPT_MODEL = "streams.model.fakes.drill:create_models"


async def fresh_database(server_url: str, name: str) -> str:
    return await create_database(server_url, name, replace=True, embedding_dim=EMBEDDING_DIM)


def run_env(profile: Profile, settings: Settings, url: str, fault_rate: float,
            fault_log: Path, seed: int) -> dict[str, str]:  # fmt: skip
    return worker_env(
        dict(os.environ),
        FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS=settings.kafka_bootstrap_servers,
        FACTSTREAM_DATABASE_URL=url,
        FACTSTREAM_TOPIC_PREFIX=settings.topic_prefix,
        FACTSTREAM_TOPIC_PARTITIONS=profile.partitions,
        FACTSTREAM_EMBEDDING_DIM=EMBEDDING_DIM,
        FACTSTREAM_MAX_RECORD_BYTES=MAX_RECORD_BYTES,
        FACTSTREAM_MODEL_PROVIDER=CHAOS_MODEL,
        FACTSTREAM_CHAOS_INNER=SCRIPT_MODEL,
        FACTSTREAM_CHAOS_FAULT_RATE=fault_rate,
        FACTSTREAM_CHAOS_FAULT_LOG=fault_log,
        FACTSTREAM_CHAOS_SEED=seed,
        FACTSTREAM_SWEEP_INTERVAL_S=profile.sweep_interval_s,
        FACTSTREAM_CLAIM_TIMEOUT_S=profile.claim_timeout_s,
        FACTSTREAM_MAX_POLL_INTERVAL_MS=profile.max_poll_interval_ms,
        FACTSTREAM_SESSION_TIMEOUT_MS=profile.session_timeout_ms,
        FACTSTREAM_LLM_TIMEOUT_S=profile.llm_timeout_s,
        FACTSTREAM_LLM_BACKOFF_BASE_S=0.1,
        FACTSTREAM_LLM_BACKOFF_MAX_S=1.0,
        # Below the drill's own liveness probe (~55 s without a poll), so a hung
        # send_offsets_to_transaction is ended by the worker's watchdog, which names the call.
        FACTSTREAM_KAFKA_TXN_WATCHDOG_S=40,
        FACTSTREAM_SHUTDOWN_DEADLINE_S=10,
        FACTSTREAM_LOG_LEVEL="INFO",
        **profile.extra_env,
    )
