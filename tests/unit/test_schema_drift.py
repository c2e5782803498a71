"""The committed JSON Schemas in schemas/ must equal what the pydantic models say."""

from pathlib import Path

from streams.ops.schemas_export import render_schemas

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schemas_match_the_models() -> None:
    rendered = render_schemas()
    committed = {p.name: p.read_text() for p in (ROOT / "schemas").glob("*.schema.json")}
    assert set(committed) == set(rendered), "run `factstream schemas export` and commit schemas/"
    for name, text in rendered.items():
        assert committed[name] == text, f"{name} drifted: run `factstream schemas export`"


def test_episode_schema_states_the_limits() -> None:
    text = render_schemas()["episodes.completed.schema.json"]
    assert '"maxItems": 500' in text
    assert '"maxLength": 20000' in text
    assert "A-Za-z0-9" in text
