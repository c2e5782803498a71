-- Full-text half of the read API's search (streams/api/search.py), in any language: the
-- 'simple' configuration lower-cases and splits on the parser's word boundaries, with no
-- stemming and no stop words, so German, Hindi or Japanese text is indexed as it is
-- written. The fact itself weighs more (A) than the user's quote it came from (B). An
-- expression index, not a stored column: a search ranks only the rows holding its rarer
-- words, so recomputing their vectors costs little, and rows keep their size (a 2,000-dim
-- vector still fits in its row, migration 007). Queries must spell the expression exactly
-- so (streams/api/search.py SEARCH_TEXT); ANALYZE keeps its lexeme frequencies, which
-- search reads to leave out words too common to rank by.
CREATE INDEX IF NOT EXISTS facts_search_text ON facts USING gin ((
    setweight(to_tsvector('simple'::regconfig, subject || ' ' || predicate || ' ' || object), 'A')
    || setweight(to_tsvector('simple'::regconfig, source_quote), 'B')
)) WHERE invalid_at IS NULL;
-- Copies whose valid time had ended when they were written keep no vector of their own
-- (streams/store/valid_ends.py); searches of the past find them by their original's
-- vector, reading them through this index rather than the whole table.
CREATE INDEX IF NOT EXISTS facts_vectorless_copies ON facts (dataset, project_id, copy_of)
    WHERE embedding IS NULL AND copy_of IS NOT NULL AND invalid_at IS NULL;
