"""llm_calls rows on a real Postgres: text that jsonb and text refuse is still stored."""

from __future__ import annotations

from streams.model.ports import CallRecord, CallScope
from streams.store.db import connect
from streams.store.llm_calls import REPLACEMENT, record_calls
from tests.support.db import create_fresh_database

SCOPE = CallScope(dataset="ds", project_id="p", episode_id="ep-nul")
# What a hostile or broken reply can hold: NUL, a lone surrogate, NaN; and what must
# survive untouched around them.
FAITHFUL = 'line\r\n\ttab "q" back\\slash \\u0000-as-text 中文 مرحبا 😀'


async def test_nul_surrogates_and_nan_are_stored_and_the_rest_is_exact(database_url: str) -> None:
    record = CallRecord(
        "extract",
        "model\x00x",
        {"prompt": f"{FAITHFUL} user said \x00", "texts": ["\ud800", FAITHFUL]},
        {"text": f"{FAITHFUL}\x00\udfff", "parsed": {"confidence": float("nan")}},
        12.5,
        error="bad byte \x00 in \ud83d reply",
    )
    conn = await connect(await create_fresh_database(database_url))
    try:
        await record_calls(conn, SCOPE, "extract", [record])
        row = await conn.fetchrow(
            "SELECT model, request, response, error FROM llm_calls"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            SCOPE.dataset,
            SCOPE.project_id,
            SCOPE.episode_id,
        )
    finally:
        await conn.close()
    assert row["model"] == f"model{REPLACEMENT}x"
    assert row["request"] == {
        "prompt": f"{FAITHFUL} user said {REPLACEMENT}",
        "texts": [REPLACEMENT, FAITHFUL],
    }
    assert row["response"] == {
        "text": f"{FAITHFUL}{REPLACEMENT}{REPLACEMENT}",
        "parsed": {"confidence": "NaN"},
    }
    assert row["error"] == f"bad byte {REPLACEMENT} in {REPLACEMENT} reply"
