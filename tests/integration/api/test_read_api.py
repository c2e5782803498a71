"""The read API on a memory the real pipeline wrote (the demo's conversations, plus a
tenant who writes markup), on real Postgres and Kafka: what an assistant reads back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from streams.api.html import seg
from tests.support.playground import (
    BAD_KEY,
    CANARY,
    DEMO_TENANTS,
    EVIL,
    ODD_EPISODE_IDS,
    Memory,
    api_client,
    app_on,
    build_memory,
    dumps,
)


@pytest.fixture(scope="module")
async def memory(kafka_bootstrap: str, database_url: str) -> Memory:
    return await build_memory(kafka_bootstrap, database_url)


@pytest.fixture
async def api(memory: Memory) -> AsyncIterator[httpx2.AsyncClient]:
    async with api_client(app_on(memory)) as client:
        yield client


async def get(api: httpx2.AsyncClient, path: str, **params: Any) -> Any:
    answer = await api.get(path, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def triples(facts: list[dict[str, Any]]) -> set[str]:
    return {f"{f['subject']} {f['predicate']} {f['object']}" for f in facts}


async def test_facts_on_both_clocks(api: httpx2.AsyncClient) -> None:
    base = "/api/tenants/demo/alice/facts"
    live = await get(api, base)
    assert triples(live["facts"]) == {
        "user works at anthropic", "user has job title data engineer", "user commutes by bike",
    }  # fmt: skip
    before_move = await get(api, base, valid_at="2026-02-20")
    assert "user works at google" in triples(before_move["facts"])
    assert "user drives honda civic" in triples(before_move["facts"])
    history = await get(api, base, history="true")
    assert len(history["facts"]) > len(live["facts"])
    # what was believed right after the first episode was written: Google, open-ended
    first = min(f["created_at"] for f in history["facts"])
    believed = await get(api, base, as_of=first, valid_at="2026-06-01")
    google = [f for f in believed["facts"] if f["object"] == "google"]
    assert google and google[0]["valid_until"] is None


async def test_one_fact_says_what_ended_it_and_where_it_came_from(
    api: httpx2.AsyncClient,
) -> None:
    history = await get(api, "/api/tenants/demo/alice/facts", history="true")
    copy = next(f for f in history["facts"]
                if f["object"] == "google" and f["end_reason"] == "superseded")  # fmt: skip
    detail = await get(api, f"/api/tenants/demo/alice/facts/{copy['id']}")
    assert detail["ended"]["end_reason"] == "superseded"
    assert detail["ended"]["ended_by"]["object"] == "anthropic"
    assert detail["ended"]["valid_until"].startswith("2026-03-01")
    lineage = {f["id"]: f for f in detail["lineage"]}
    original = lineage[copy["copy_of"]]
    # The copy was written by the episode that ended it; it was said in the original's.
    assert copy["episode_id"] == detail["ended"]["ended_by"]["episode_id"] != "alice-1"
    assert lineage[copy["id"]]["said_in"] == original["said_in"] == "alice-1"
    assert original["invalid_reason"] == "superseded" and original["valid_until"] is None
    assert original["source_quote"] == "I'm a data engineer at Google"
    assert "alice-1" in detail["episodes"]
    said = [m["content"] for m in detail["episodes"]["alice-1"]["transcript"]]
    assert any("data engineer at Google" in m for m in said)
    extraction = [c for c in detail["model_calls"]
                  if c["episode_id"] == "alice-1" and c["kind"] == "extract"]  # fmt: skip
    assert len(extraction) == 1
    assert "I'm a data engineer at Google" in dumps(extraction[0]["response"])


async def test_the_pages_say_a_closed_rows_copy_continues_it_and_who_said_it(
    api: httpx2.AsyncClient,
) -> None:
    history = (await get(api, "/api/tenants/demo/alice/facts", history="true"))["facts"]
    closed = next(f for f in history if f["copy_of"] is None and f["invalid_reason"] == "closed")
    copy = next(f for f in history if f["copy_of"] == closed["id"])
    page = (await api.get(f"/tenants/demo/alice/facts/{closed['id']}")).text
    assert f'retired: continued by <a href="/tenants/demo/alice/facts/{copy["id"]}">' in page
    assert f'closed by <a href="/tenants/demo/alice/facts/{copy["id"]}"' not in page
    said, ended_in = closed["episode_id"], copy["episode_id"]
    assert said != ended_in
    assert f">{said}</a> (end from <a" in page and f">{ended_in}</a>)" in page
    # the user's words that ended it stay with the end, and its page shows them
    assert "sold my Honda Civic" in copy["end_quote"] and closed["end_quote"] is None
    assert f"#{copy['id']} ended in the user" in page and copy["end_quote"] in page
    drawn = (await api.get("/tenants/demo/alice", params={"history": "true"})).text
    for row in history:
        state = "retired" if row["invalid_at"] else "current"
        assert f'class="bar {state} ' in drawn.split(f'data-fact-id="{row["id"]}"')[0][-80:]


async def test_entities_and_an_entitys_neighbourhood(api: httpx2.AsyncClient) -> None:
    listed = await get(api, "/api/tenants/demo/alice/entities")
    civic = next(e for e in listed["entities"] if e["name"] == "honda civic")
    now = await get(api, f"/api/tenants/demo/alice/entities/{civic['id']}")
    assert now["entity"]["type"] == "VEHICLE"
    assert now["facts"] == []  # sold: nothing about the car is true now
    then = await get(api, f"/api/tenants/demo/alice/entities/{civic['id']}", valid_at="2026-03-15")
    assert triples(then["facts"]) == {
        "user drives honda civic", "honda civic has mileage of 80000 miles",
    }  # fmt: skip


async def test_episodes_feed_and_one_episodes_trace(api: httpx2.AsyncClient) -> None:
    feed = await get(api, "/api/episodes")
    ids = {(e["dataset"], e["project_id"], e["episode_id"]) for e in feed["episodes"]}
    assert ("demo", "carol", "carol-2") in ids and ("demo", "carol", "carol-3") in ids
    carol2 = next(e for e in feed["episodes"] if e["episode_id"] == "carol-2")
    assert carol2["stages"] == dict.fromkeys(
        ["summarize", "extract", "resolve", "dedup", "judge", "write"], "done"
    )
    later = await get(api, "/api/episodes", changed_after=max(e["updated_at"] for e in
                                                               feed["episodes"]))  # fmt: skip
    assert later["episodes"] == []
    trace = await get(api, "/api/tenants/demo/carol/episodes/carol-2")
    reasons = {(d["stage"], d["reason"], d["subject"]) for d in trace["drops"]}
    assert ("guard", "subject_not_allowed", "dave") in reasons
    assert {c["stage"] for c in trace["model_calls"]} >= {"summarize", "extract", "judge"}
    assert [f["object"] for f in trace["facts_ended"]] == ["chennai"]
    assert trace["mends"] == []  # the demo model answers as the guards store it


async def test_an_episode_whose_id_a_path_cannot_hold_still_opens(
    api: httpx2.AsyncClient,
) -> None:
    for episode_id in ODD_EPISODE_IDS:
        # Every id by the query form; all but the dot segments by the path form too.
        asked = [("/api/tenants/odd/ids/episode", {"id": episode_id})]
        if episode_id not in (".", ".."):
            asked.append((f"/api/tenants/odd/ids/episodes/{seg(episode_id)}", {}))
        for path, params in asked:
            trace = await get(api, path, **params)
            assert trace["episode_id"] == episode_id, path
            assert trace["ledger"]["status"] == "done", trace["ledger"]
    assert (await api.get("/api/tenants/odd/ids/episodes/a")).status_code == 404


async def test_tenant_isolation_the_canary_never_shows_for_another_tenant(
    api: httpx2.AsyncClient,
) -> None:
    evil = await get(api, "/api/tenants/evil/mallory/facts")
    (canary_fact,) = [f for f in evil["facts"] if CANARY in f["object"]]
    assert CANARY in dumps(await get(api, "/api/tenants/evil/mallory/search", q=CANARY))
    for dataset, project in DEMO_TENANTS:
        t = f"/api/tenants/{dataset}/{project}"
        seen = [
            await get(api, f"{t}/facts", history="true"),
            await get(api, f"{t}/facts"),
            (await get(api, f"{t}/search", q=f"{CANARY} stamps", include_ended="true",
                       min_confidence="0", include_untrusted="true"))["results"],
            await get(api, f"{t}/entities"),
            await get(api, f"{t}/episodes"),
        ]  # fmt: skip
        for e in (await get(api, f"{t}/entities"))["entities"]:
            seen.append(await get(api, f"{t}/entities/{e['id']}", history="true"))
        for e in (await get(api, f"{t}/episodes"))["episodes"]:
            seen.append(await get(api, f"{t}/episodes/{e['episode_id']}"))
        assert CANARY not in dumps(seen), f"{dataset}:{project} shows another tenant's fact"
        # the other tenant's ids are not found under this tenant's path
        assert (await api.get(f"{t}/facts/{canary_fact['id']}")).status_code == 404
        assert (await api.get(f"{t}/episodes/evil-1")).status_code == 404
    feed = await get(api, "/api/tenants/demo/bob/episodes")
    assert {e["dataset"] for e in feed["episodes"]} == {"demo"}
    assert EVIL == ("evil", "mallory")


@pytest.mark.parametrize(
    ("path", "params", "status", "says"),
    [
        ("/api/tenants/demo/alice/facts", {"valid_at": "last tuesday"}, 400, "valid_at"),
        ("/api/tenants/demo/alice/facts", {"history": "true", "as_of": "2026-01-01"}, 400,
         "history"),
        ("/api/tenants/demo/alice/facts", {"history": "maybe"}, 400, "history"),
        ("/api/tenants/demo/alice/facts/abc", {}, 400, "fact id"),
        ("/api/tenants/demo/alice/facts/999999999", {}, 404, "no fact"),
        ("/api/tenants/demo/alice/search", {}, 400, "q:"),
        ("/api/tenants/demo/alice/search", {"q": "job", "k": "0"}, 400, "k:"),
        ("/api/tenants/demo/alice/search", {"q": "job", "k": "many"}, 400, "k:"),
        ("/api/tenants/demo/alice/search", {"q": "job", "min_confidence": "2"}, 400,
         "min_confidence"),
        ("/api/tenants/demo/alice/search", {"q": "job", "min_confidence": "nan"}, 400,
         "min_confidence"),
        ("/api/tenants/demo/alice/entities/-1", {}, 400, "entity id"),
        ("/api/tenants/demo/alice/episodes/nope", {}, 404, "no episode"),
        ("/api/tenants/de%20mo/alice/facts", {}, 400, "not a tenant id"),
        ("/api/pipeline/dlq/nostage", {}, 404, "no stage"),
        ("/api/nothing-here", {}, 404, "no such"),
        ("/api", {}, 404, "no such"),
        ("/api/tenants/demo/alice/search", {"q": "job\x00"}, 400, "NUL character"),
        ("/api/tenants/demo/alice/facts", {"valid_at\x00": "x"}, 400, "NUL character"),
        ("/api/tenants/demo/alice/episodes/a%00b", {}, 400, "NUL character"),
        ("/api/tenants/demo/alice/episode", {}, 400, "id:"),
        ("/api/pipeline/dlq/extract/99/0", {}, 404, "has no partition 99"),
        ("/api/pipeline/dlq/extract/0/999999999", {}, 404, "no dead letter"),
    ],
)  # fmt: skip
async def test_bad_parameters_answer_json_with_a_clear_message(
    api: httpx2.AsyncClient, path: str, params: dict[str, str], status: int, says: str
) -> None:
    answer = await api.get(path, params=params)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert says in answer.json()["error"]


async def test_lag_and_dead_letters_of_the_pipeline(api: httpx2.AsyncClient) -> None:
    lag = await get(api, "/api/pipeline/lag", fresh="true")
    stages = lag["samples"][-1]["lag"]
    assert set(stages) == {"summarize", "extract", "resolve", "dedup", "judge", "write"}
    assert all(v is not None for v in stages.values()), lag["samples"][-1]["errors"]
    counts = await get(api, "/api/pipeline/dlq")
    assert counts["stages"]["extract"]["count"] == 1
    listed = await get(api, "/api/pipeline/dlq/extract")
    (letter,) = listed["dead_letters"]
    assert letter["tenant"] == BAD_KEY.decode()
    shown = await get(api, f"/api/pipeline/dlq/extract/{letter['partition']}/{letter['offset']}")
    assert dict(shown["headers"])["x-reason"] == "bad_json"
    assert shown["payload"]["text"] == '{"not": json'


async def test_redrive_needs_an_explicit_confirmation(api: httpx2.AsyncClient) -> None:
    (letter,) = (await get(api, "/api/pipeline/dlq/summarize"))["dead_letters"]
    url = f"/api/pipeline/dlq/summarize/{letter['partition']}/{letter['offset']}/redrive"
    assert (await api.post(url)).status_code == 415
    wrong = await api.post(url, json={"confirm": "yes"})
    assert wrong.status_code == 400 and "summarize " in wrong.json()["error"]
    assert (await api.get(url)).status_code == 405
    done = await api.post(url, json={"confirm": f"summarize {letter['id']}"})
    assert done.status_code == 200, done.text
    assert [r["id"] for r in done.json()["redriven"]] == [letter["id"]]
    again = await api.post(url, json={"confirm": f"summarize {letter['id']}"})
    assert again.json()["redriven"] == [] and again.json()["already_redriven"] is True
    partition, offset = letter["partition"], letter["offset"] + 1000
    nowhere = f"/api/pipeline/dlq/summarize/{partition}/{offset}/redrive"
    missing = await api.post(nowhere, json={"confirm": f"summarize {partition}/{offset}"})
    assert missing.status_code == 404 and "no dead letter" in missing.json()["error"]


async def test_topics_that_do_not_exist_are_said_so(memory: Memory) -> None:
    async with api_client(app_on(memory, topic_prefix="no-such-topics.")) as api:
        missing = await api.get("/api/pipeline/dlq/extract")
        assert missing.status_code == 404
        assert "no-such-topics.dlq.extract" in missing.json()["error"]
        counts = await get(api, "/api/pipeline/dlq")
        assert counts["stages"]["judge"]["count"] is None
        assert "does not exist" in counts["stages"]["judge"]["error"]
        lag = await get(api, "/api/pipeline/lag", fresh="true")
        assert lag["samples"][-1]["lag"]["write"] is None
        assert "no-such-topics.facts.judged" in lag["samples"][-1]["errors"]["write"]


async def test_a_broker_out_of_reach_is_a_503_that_says_so(memory: Memory) -> None:
    async with api_client(app_on(memory, kafka_bootstrap_servers="127.0.0.1:9")) as api:
        answer = await api.get("/api/pipeline/dlq/extract")
        assert answer.status_code == 503, answer.text
        assert "Kafka is unreachable or failed" in answer.json()["error"]
        facts = await api.get("/api/tenants/demo/alice/facts")  # memory reads go on
        assert facts.status_code == 200
