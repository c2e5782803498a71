"""Search a tenant's memory: the query's embedding and its words, fused.

Two rankings of the same filtered rows, fused by reciprocal rank fusion (RRF, score =
sum over the rankings of 1 / (60 + rank), Cormack et al.): ranks, not raw scores, are
fused because cosine similarity and ``ts_rank_cd`` live on unrelated scales.

- vector: cosine similarity of the query embedded with the configured embedder, through
  streams/store/vector_search.py (exact scan for small tenants, the tenant's own HNSW
  index for big ones, never fewer rows than exist);
- text: Postgres full-text rank with the 'simple' configuration (no stemming and no stop
  words, so it works alike in every language) over the fact and its quote (migration
  014's expression index); the query's words are OR-ed, so a question need not contain
  every word, and words too common to rank by (in more than a tenth of all facts, by
  Postgres' own statistics) are left out.

Filters, applied to both: the tenant; believed now (``invalid_at IS NULL``); true at
``valid_at`` (default now) unless ``include_ended``; confidence at least
``min_confidence`` (default ``retrieval_min_confidence``); trusted unless
``include_untrusted``; the vector half also leaves out what is less similar than
``min_similarity`` (``search_min_similarity``). When the embedder fails, the text half
still answers and the result says why the vector half is missing.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from streams.api.arguments import check_tenant
from streams.model.ports import CallScope, Embedder, EmbedInput
from streams.settings import Settings
from streams.store import facts_query
from streams.store.chain_vector import vector_up_chain
from streams.store.facts_query import FactRow
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning, configure_search, nearest

RRF_K = 60
SEARCH_EPISODE = "(search)"  # the scope of a query's embedding call: no episode


MAX_QUERY_CHARS = 2000
MAX_K = 1000  # past it a search is an export; the API caps lower (search_max_k)


@dataclass(frozen=True)
class SearchQuery:
    """What to search for; checked when made (ValueError naming the field), so a bad
    query never reaches Postgres. :meth:`of` takes the defaults from settings."""

    text: str
    k: int = 10
    valid_at: datetime | None = None  # None: now
    include_ended: bool = False  # every believed row, whatever its valid time
    min_confidence: float = 0.5  # the default retrieval_min_confidence
    include_untrusted: bool = False
    min_similarity: float = 0.0  # the vector half's floor (cosine)

    def __post_init__(self) -> None:
        problem = _query_problem(self)
        if problem is not None:
            raise ValueError(f"SearchQuery {problem}")

    @classmethod
    def of(cls, settings: Settings, text: str, **given: Any) -> SearchQuery:
        """A query with the deployment's defaults (``search_default_k``,
        ``retrieval_min_confidence``, ``search_min_similarity``) for what is not given;
        ``k`` at most ``search_max_k``."""
        k = given.pop("k", settings.search_default_k)
        if isinstance(k, int) and k > settings.search_max_k:
            raise ValueError(f"SearchQuery k: at most {settings.search_max_k}, not {k}")
        given.setdefault("min_confidence", settings.retrieval_min_confidence)
        given.setdefault("min_similarity", settings.search_min_similarity)
        return cls(text=text, k=k, **given)


def _query_problem(q: SearchQuery) -> str | None:
    if not isinstance(q.text, str) or not q.text.strip():
        return "text: give the text to search for"
    if len(q.text) > MAX_QUERY_CHARS or "\x00" in q.text:
        return f"text: at most {MAX_QUERY_CHARS} characters, and no NUL"
    if isinstance(q.k, bool) or not isinstance(q.k, int) or not 1 <= q.k <= MAX_K:
        return f"k: a whole number from 1 to {MAX_K}, not {q.k!r}"
    for name, low in (("min_confidence", 0.0), ("min_similarity", -1.0)):
        value = getattr(q, name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name}: a number, not {value!r}"
        if not low <= value <= 1.0:  # also refuses NaN
            return f"{name}: from {low:g} to 1, not {value!r}"
    if q.valid_at is not None and (
        not isinstance(q.valid_at, datetime) or q.valid_at.tzinfo is None
    ):
        return f"valid_at: a datetime with its time zone, not {q.valid_at!r}"
    return None


@dataclass(frozen=True)
class SearchHit:
    fact: FactRow
    score: float  # the fused RRF score
    vector_rank: int | None  # 1-based; None: not among the vector half's candidates
    similarity: float | None
    text_rank: int | None
    text_score: float | None
    # The episode the user said it in. A copy that carries a valid end belongs to the
    # episode that ended it (``fact.episode_id``); its statement is its original's.
    said_in: str


@dataclass
class SearchResult:
    hits: list[SearchHit] = field(default_factory=list)
    embedding_error: str | None = None  # why only the text half answered


def candidates(k: int) -> int:
    """How many rows each half ranks before fusion: more than k, so a fact second in
    one ranking and absent from the other's top k can still win."""
    return min(max(3 * k, 30), 300)


def _count_where(args: list[Any]) -> str:
    """The small-set check's looser filter (streams/store/vector_search.py): the tenant's
    believed rows, which an index counts alone. The check runs with the search's
    parameters, so it names each of them too (never NULL: no filtering)."""
    types = {float: "real", datetime: "timestamptz"}
    named = [f"${i + 2}::{types[type(a)]} IS NOT NULL" for i, a in enumerate(args) if i >= 2]
    return " AND ".join(["t.dataset = $2 AND t.project_id = $3 AND t.invalid_at IS NULL", *named])


def _filters(query: SearchQuery, dataset: str, project_id: str) -> tuple[str, list[Any]]:
    """The shared WHERE on ``t`` with its parameters, numbered from $2 ($1 is the query)."""
    args: list[Any] = [dataset, project_id, float(query.min_confidence)]
    where = ["t.dataset = $2 AND t.project_id = $3 AND t.invalid_at IS NULL AND t.confidence >= $4"]
    if not query.include_untrusted:
        where.append("t.untrusted_reason IS NULL")
    if not query.include_ended:
        when = "now()"
        if query.valid_at is not None:
            args.append(query.valid_at)
            when = f"${len(args) + 1}"
        where.append(facts_query.valid_time_sql(when, "t"))
    return " AND ".join(where), args


# A copy whose valid time ended before it was written keeps no vector of its own (the
# writer leaves it out of dedup's and the judge's searches); the rows up its chain have
# the same triple, hence the same vector. Searches of the past read it from the row it
# continues (or further up, when that is such a copy too: an end moved again), in a
# second search over those copies alone: they are few, and the first search keeps the
# tenant's vector index. Each copy's original is looked up by its key (OFFSET 0 keeps
# the lookup per copy): as a plain join beside the chain's subquery, the planner hashed
# the tenant's every row to find them (100k facts: 145 ms a search, not 37).
_ENDED_COPIES = (
    "(SELECT f.id, f.dataset, f.project_id, f.invalid_at, f.confidence, f.untrusted_reason,"
    " f.valid_from, f.valid_until, f.stated_at,"
    f" coalesce(o.embedding, {vector_up_chain('o.copy_of', 'f.dataset', 'f.project_id')})"
    " AS embedding"
    " FROM facts f CROSS JOIN LATERAL (SELECT x.embedding, x.copy_of FROM facts x"
    " WHERE x.id = f.copy_of AND x.dataset = f.dataset AND x.project_id = f.project_id"
    " OFFSET 0) o"
    " WHERE f.dataset = $2 AND f.project_id = $3 AND f.embedding IS NULL"
    " AND f.copy_of IS NOT NULL AND f.invalid_at IS NULL)"
)


async def _vector_half(
    conn: Any, query: SearchQuery, vector: list[float], where: str, args: list[Any],
    tuning: ScanTuning,
) -> list[tuple[int, float]]:  # fmt: skip
    n = candidates(query.k)
    sources = ["facts"]
    if query.valid_at is not None or query.include_ended:
        sources.append(_ENDED_COPIES)
    found: list[tuple[int, float]] = []
    for source in sources:
        rows = await nearest(
            conn, source=source, columns="t.id", where=where, args=args, vectors=[vector],
            k=n, count_where=_count_where(args), tuning=tuning,
        )  # fmt: skip
        found += [(int(r["id"]), float(r["similarity"])) for r in rows[0]
                  if float(r["similarity"]) >= query.min_similarity]  # fmt: skip
    found.sort(key=lambda f: (-f[1], -f[0]))
    return found[:n]


# The indexed text of a fact, exactly as migration 014's expression index spells it (the
# planner uses the index only for the same expression).
SEARCH_TEXT = (
    "(setweight(to_tsvector('simple'::regconfig, t.subject || ' ' || t.predicate || ' '"
    " || t.object), 'A') || setweight(to_tsvector('simple'::regconfig, t.source_quote), 'B'))"
)
# A word in more than this share of all facts ranks nothing (BM25's IDF in one line) and
# makes Postgres rank most of a tenant's rows: "user", "the", "my", "has" in any language.
COMMON_SHARE = 0.1
# The query's words, OR-ed, less the common ones by ANALYZE's lexeme statistics of the
# index's expression (pg_stats.most_common_elems). No statistics yet (a new table) keeps
# every word; every word common leaves no text query, and the vector half answers alone.
_ASKED = f"""
WITH common AS (
    SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
    FROM pg_stats s WHERE s.schemaname = current_schema()
      AND s.tablename = 'facts_search_text' AND s.attname = 'expr'
), asked AS (
    SELECT string_agg(plainto_tsquery('simple', w.lexeme)::text, ' | ')::tsquery AS q
    FROM unnest(to_tsvector('simple', $1)) w LEFT JOIN common c ON true
    WHERE coalesce(c.freqs[array_position(c.elems, w.lexeme)], 0) <= {COMMON_SHARE}
)"""


async def _text_half(
    conn: Any, query: SearchQuery, where: str, args: list[Any]
) -> list[tuple[int, float]]:
    sql = (
        f"{_ASKED} SELECT t.id, ts_rank_cd({SEARCH_TEXT}, asked.q) AS score FROM facts t, asked"
        f" WHERE {where} AND {SEARCH_TEXT} @@ asked.q"
        f" ORDER BY score DESC, t.id DESC LIMIT {candidates(query.k)}"
    )
    async with conn.transaction():
        await configure_search(conn)  # custom plans: the tenant's rows, not a generic guess
        rows = await conn.fetch(sql, query.text, *args)
    return [(int(r["id"]), float(r["score"])) for r in rows]


async def embed_query(embedder: Embedder, dataset: str, project_id: str, text: str) -> list[float]:
    scope = CallScope(dataset=dataset, project_id=project_id, episode_id=SEARCH_EPISODE)
    result = await embedder.embed(EmbedInput(scope=scope, purpose="facts", texts=[text]))
    vectors = result.value
    if len(vectors) != 1 or not all(map(math.isfinite, vectors[0])):
        raise ValueError("the embedder returned no usable vector for the query")
    return list(vectors[0])


def fuse(
    vector: list[tuple[int, float]], text: list[tuple[int, float]]
) -> list[tuple[int, float, int | None, int | None]]:
    """(id, RRF score, vector rank, text rank), best first; ties: the newer id first."""
    v_rank = {fact_id: i for i, (fact_id, _) in enumerate(vector, 1)}
    t_rank = {fact_id: i for i, (fact_id, _) in enumerate(text, 1)}
    fused = []
    for fact_id in v_rank.keys() | t_rank.keys():
        vr, tr = v_rank.get(fact_id), t_rank.get(fact_id)
        score = sum(1 / (RRF_K + r) for r in (vr, tr) if r is not None)
        fused.append((fact_id, score, vr, tr))
    fused.sort(key=lambda f: (-f[1], -f[0]))
    return fused


async def search(
    pool: Any,
    embedder: Embedder,
    dataset: str,
    project_id: str,
    query: SearchQuery,
    tuning: ScanTuning = DEFAULT_TUNING,
) -> SearchResult:
    """The tenant's ``query.k`` best facts for ``query.text``, with scores and provenance."""
    check_tenant(dataset, project_id)
    # Facts are stored NFKC-folded (streams/domain/names.py): so is the query, so "München"
    # typed with a combining umlaut or "ＴＥＳＬＡ" in full width finds them too.
    query = replace(query, text=unicodedata.normalize("NFKC", query.text))
    result = SearchResult()
    vector: list[float] | None = None
    try:
        vector = await embed_query(embedder, dataset, project_id, query.text)
    except Exception as exc:  # any provider failure: the text half still answers
        result.embedding_error = f"{type(exc).__name__}: {exc}"
    where, args = _filters(query, dataset, project_id)
    async with pool.acquire() as conn:
        by_vector = (
            [] if vector is None else await _vector_half(conn, query, vector, where, args, tuning)
        )
        by_text = await _text_half(conn, query, where, args)
        ranked = fuse(by_vector, by_text)[: query.k]
        rows = await facts_query.fact_rows(conn, dataset, project_id, [r[0] for r in ranked])
        said_in = await facts_query.said_in(conn, dataset, project_id, rows)
    by_id = {r.id: r for r in rows}
    similarity = dict(by_vector)
    text_score = dict(by_text)
    result.hits = [
        SearchHit(by_id[i], score, vr, similarity.get(i), tr, text_score.get(i),
                  said_in.get(i, by_id[i].episode_id))
        for i, score, vr, tr in ranked
        if i in by_id
    ]  # fmt: skip
    return result
