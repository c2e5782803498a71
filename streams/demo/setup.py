"""What `factstream demo` prepares before any worker starts: which models the workers use
(replay / Gemini / an OpenAI-compatible server / recording the scripted demo model), a
fresh database, and saving a new recording as the bundled cassette.

``--provider auto`` follows ``FACTSTREAM_MODEL_PROVIDER=openai`` when it is set (a local
Ollama or vLLM), else runs on Gemini when a Gemini key is set, else on the cassette."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from streams.errors import FactstreamError
from streams.model.openai.client import OpenAIConfigError, check_settings
from streams.model.replay import Cassette
from streams.settings import Settings
from streams.store.databases import create_database
from streams.store.migrate import migrate

DEMO_DATA = Path(__file__).parent / "data"
EPISODES = DEMO_DATA / "episodes.jsonl"
CASSETTE = DEMO_DATA / "cassette.jsonl"
DEMO_MODEL = "streams.model.fakes.demo:create_models"
# The cassette's vectors come from the scripted embedder; 64 dimensions keep it small.
CASSETTE_DIM = 64
# Failed-under-cap episodes are retried by the demo's sweeper this often.
SWEEP_INTERVAL_S = 3.0


class DemoError(FactstreamError, RuntimeError):
    """The demo could not run or did not finish; the message says what to look at."""


@dataclass(frozen=True)
class ModelChoice:
    provider: str
    env: dict[str, str]
    dim: int
    banner: str


def choose_models(settings: Settings, provider: str, record: bool, run_dir: Path) -> ModelChoice:
    if record:
        path = run_dir / "cassette.recording.jsonl"
        path.unlink(missing_ok=True)
        env = {
            "FACTSTREAM_MODEL_PROVIDER": "record",
            "FACTSTREAM_CASSETTE_PATH": str(path),
            "FACTSTREAM_RECORD_INNER_PROVIDER": DEMO_MODEL,
        }
        banner = f"recording a new cassette from the scripted demo model ({DEMO_MODEL})"
        return ModelChoice("record", env, CASSETTE_DIM, banner)
    if provider == "auto":
        if settings.model_provider.strip() == "openai":
            provider = "openai"
        else:
            provider = "gemini" if settings.gemini_api_key is not None else "replay"
    if provider == "openai":
        return _openai_choice(settings)
    if provider == "gemini":
        if settings.gemini_api_key is None:
            raise DemoError("--provider gemini needs GEMINI_API_KEY (or FACTSTREAM_GEMINI_API_KEY)")
        banner = f"models: Gemini ({settings.extract_model}, {settings.embed_model}), key is set"
        return ModelChoice(
            "gemini", {"FACTSTREAM_MODEL_PROVIDER": "gemini"}, settings.embedding_dim, banner
        )
    if not CASSETTE.is_file():
        raise DemoError(f"no cassette at {CASSETTE}: run `factstream demo --record-cassette`")
    env = {"FACTSTREAM_MODEL_PROVIDER": "replay", "FACTSTREAM_CASSETTE_PATH": str(CASSETTE)}
    banner = (
        "models: no GEMINI_API_KEY, so every model answer is REPLAYED from the bundled cassette"
        f" {CASSETTE.relative_to(DEMO_DATA.parents[2])} (answers of our scripted demo model,"
        " not of Gemini). Set GEMINI_API_KEY to run on Gemini."
    )
    return ModelChoice("replay", env, CASSETTE_DIM, banner)


def _openai_choice(settings: Settings) -> ModelChoice:
    """The workers on an OpenAI-compatible server (FACTSTREAM_MODEL_PROVIDER=openai): its
    URL, key and model names come from the environment the workers inherit."""
    try:
        check_settings(settings)
    except OpenAIConfigError as exc:
        raise DemoError(str(exc)) from exc
    where = settings.openai_base_url or "api.openai.com"
    banner = (
        f"models: OpenAI-compatible server at {where} ({settings.extract_model},"
        f" {settings.embed_model}, {settings.embedding_dim} dimensions)"
    )
    return ModelChoice(
        "openai", {"FACTSTREAM_MODEL_PROVIDER": "openai"}, settings.embedding_dim, banner
    )


async def fresh_database(server_url: str, name: str, dim: int) -> tuple[str, list[int]]:
    """Drop and recreate ``name`` on the server, migrate it; its URL and applied versions."""
    try:
        url = await create_database(server_url, name, replace=True)
    except ValueError as exc:
        raise DemoError(str(exc)) from exc
    except asyncpg.PostgresError as exc:
        raise DemoError(
            f"cannot recreate database {name!r} on the configured server ({exc}); the demo"
            " needs CREATEDB there, or pick another server with FACTSTREAM_DATABASE_URL"
        ) from exc
    return url, await migrate(url, dim)


def save_cassette(recording: Path) -> int:
    """Keep one entry per key (the last success), sorted, in the bundled cassette."""
    entries = Cassette(recording).load()
    ordered = sorted(
        entries.values(),
        key=lambda e: (e["scope"]["project_id"], e["scope"]["episode_id"], e["kind"], e["key"]),
    )
    CASSETTE.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in ordered))
    return len(ordered)
