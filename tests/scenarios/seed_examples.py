"""Every example of the seed as a scenario: the episodes, what the model says, what embeds where.

Each scenario is one tenant's conversation: its episodes in order (id, what the user
said, the extraction the scripted model returns), how the judge answers, and the
embedding table. tests/scenarios/test_seed_examples.py runs them all through one
pipeline and asserts each tenant's whole fact table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from streams.domain.graph import RawGraph
from streams.model.fakes.book import VerdictFn, always, claim, graph, verdicts
from streams.model.fakes.scripted import hashed_vector, vector_at_similarity
from tests.support.db import TEST_EMBEDDING_DIM

DIM = TEST_EMBEDDING_DIM
TODAY = datetime.now(UTC).date()


def day(days_from_today: int) -> str:
    """A date as the model writes it (YYYY-MM-DD), relative to today."""
    return (TODAY + timedelta(days=days_from_today)).isoformat()


def at(date: str) -> datetime:
    """The instant a model date stands for once the guards have read it (midnight UTC)."""
    return datetime.fromisoformat(date).replace(tzinfo=UTC)


JOINING_DAY = day(90)  # "I'm joining Acme on March 1": a date to come
SOLD_DAY = day(-17)  # "last week", a week before the conversation ten days ago
RETIRING_DAY = day(30)  # "at the end of the year"
INITECH_END = day(-6 * 365)  # "back in 2019"
FITBOX_END = day(-30)  # "until the end of October"


def near(text: str, similarity: float) -> list[float]:
    """A vector at exactly ``similarity`` to ``text``'s default (hashed) embedding."""
    return vector_at_similarity(hashed_vector(text, DIM), similarity, seed=f"near:{text}")


@dataclass
class Scenario:
    episodes: list[tuple[str, str, RawGraph | Exception]]  # (episode id, user text, graph)
    verdict: VerdictFn | None = None
    judge_error: Exception | None = None
    vectors: dict[str, list[float]] = field(default_factory=dict)


ORG, PLACE = {"google": "ORG"}, "PLACE"
WORKS_AT_GOOGLE = ("ep-1", "I work at Google.", graph(ORG, claim("user", "works at", "google")))
ANTHROPIC = graph({"anthropic": "ORG"}, claim("user", "works at", "anthropic"))
# A judge that would end anything it is asked about: where the table shows nothing
# ended, no pair reached it (the llm_calls assertions say so too).
DESTROYER = always("old")

# fmt: off
SCENARIOS: dict[str, Scenario] = {
    "job-change": Scenario(
        [WORKS_AT_GOOGLE, ("ep-2", "I just started at Anthropic.", ANTHROPIC)],
        verdict=verdicts({("user works at anthropic", "user works at google"): "old"}),
    ),
    "joining-acme": Scenario(
        [("ep-1", "I'm joining Acme on March 1.",
          graph({"acme": "ORG"}, claim("user", "works at", "acme", since=JOINING_DAY)))],
    ),
    "budgets": Scenario(
        [("ep-1", "My budget for the car is 25k.",
          graph({}, claim("user", "has car budget of", "25000 usd"))),
         ("ep-2", "For the TV I can spend 1500.",
          graph({}, claim("user", "has tv budget of", "1500 usd")))],
        verdict=DESTROYER,
    ),
    "sold-civic": Scenario(
        [("ep-1", "I drive a Honda Civic; it has 80,000 km on it.",
          graph({"honda civic": "VEHICLE"}, claim("user", "drives", "honda civic"),
                claim("honda civic", "has mileage of", "80000 km"))),
         ("ep-2", "I sold my Honda Civic last week.",
          graph({"honda civic": "VEHICLE"},
                claim("user", "sold", "honda civic", until=SOLD_DAY)))],
        verdict=verdicts({("user sold honda civic", "user drives honda civic"): "old"}),
    ),
    "retiring-novablast": Scenario(
        [("ep-1", "I run in my Novablast 5; they have 300 km on them.",
          graph({"novablast 5": "PRODUCT"}, claim("user", "owns", "novablast 5"),
                claim("novablast 5", "has mileage of", "300 km"))),
         ("ep-2", "I'm retiring my Novablast 5 at the end of the year.",
          graph({"novablast 5": "PRODUCT"},
                claim("user", "is retiring", "novablast 5", until=RETIRING_DAY)))],
        verdict=verdicts({("user is retiring novablast 5", "user owns novablast 5"): "old"}),
    ),
    "chennai": Scenario(
        [("ep-1", "I live in Chennai.",
          graph({"chennai": PLACE}, claim("user", "lives in", "chennai"))),
         ("ep-2", "I work from Chennai too.",
          graph({"chennai": PLACE}, claim("user", "works from", "chennai")))],
        verdict=DESTROYER,
        # Inside the contradiction band: only the agreeing object keeps them apart.
        vectors={"user works from chennai": near("user lives in chennai", 0.85)},
    ),
    "employed-by": Scenario(
        [("ep-1", "I work at Initech.",
          graph({"initech": "ORG"}, claim("user", "works at", "initech"))),
         ("ep-2", "These days I'm employed by Globex.",
          graph({"globex": "ORG"}, claim("user", "is employed by", "globex")))],
        verdict=verdicts({("user is employed by globex", "user works at initech"): "old"}),
        vectors={"user is employed by globex": near("user works at initech", 0.85)},
    ),
    "judge-fails": Scenario(
        [WORKS_AT_GOOGLE, ("ep-2", "I just started at Anthropic.", ANTHROPIC)],
        judge_error=RuntimeError("model overloaded (503) after retries"),
    ),
    "low-confidence": Scenario(
        [("ep-1", "I live in Paris.",
          graph({"paris": PLACE}, claim("user", "lives in", "paris"))),
         ("ep-2", "Maybe I'll end up in Rome, who knows.",
          graph({"rome": PLACE}, claim("user", "lives in", "rome", conf=0.3)))],
        verdict=DESTROYER,
    ),
    "historical": Scenario(
        [WORKS_AT_GOOGLE,
         ("ep-2", "Back in 2019 I worked at Initech.",
          graph({"initech": "ORG"}, claim("user", "works at", "initech", until=INITECH_END)))],
        verdict=DESTROYER,
    ),
    "new-verdict": Scenario(
        [("ep-1", "I work at Google and at DeepMind.",
          graph({"google": "ORG", "deepmind": "ORG"}, claim("user", "works at", "google"),
                claim("user", "works at", "deepmind"))),
         ("ep-2", "I work at Anthropic.", ANTHROPIC)],
        verdict=verdicts({
            ("user works at anthropic", "user works at google"): "old",
            ("user works at anthropic", "user works at deepmind"): "new",
        }),
    ),
    "renewal": Scenario(
        [("ep-1", "I was a Fitbox member until the end of October.",
          graph({"fitbox": "ORG"}, claim("user", "is member of", "fitbox", until=FITBOX_END))),
         ("ep-2", "I joined Fitbox again.",
          graph({"fitbox": "ORG"}, claim("user", "is member of", "fitbox")))],
        verdict=DESTROYER,
    ),
    "aliases": Scenario(
        [("ep-1", "I work at Acme Corp.",
          graph({"Acme Corp": "ORG"}, claim("user", "works at", "Acme Corp"))),
         ("ep-2", "acme corp. gave me a raise.",
          graph({"acme corp.": "ORG"}, claim("user", "works at", "acme corp."))),
         ("ep-3", "Acme Corporation is my employer.",
          graph({"Acme Corporation": "ORG"}, claim("user", "works at", "Acme Corporation")))],
        verdict=DESTROYER,
        vectors={"acme corporation": near("acme corp", 0.93)},
    ),
    "paraphrases": Scenario(
        [("ep-1", "I want a large screen, a big display really.",
          graph({}, claim("user", "wants", "large screen"),
                claim("user", "prefers", "big display"))),
         ("ep-2", "I'd love a large screen.",
          graph({}, claim("user", "would like", "large screen")))],
        verdict=DESTROYER,
        vectors={
            "user prefers big display": near("user wants large screen", 0.97),
            "user would like large screen": near("user wants large screen", 0.96),
        },
    ),
}
# fmt: on
