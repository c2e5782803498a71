-- Full-text half of the read API's search (streams/api/search.py), in any language: the
-- 'simple' configuration lower-cases and splits on the parser's word boundaries, with no
-- stemming and no stop words, so German, Hindi or Japanese text is indexed as it is written.
-- The fact itself weighs more (A) than the user's quote it came from (B). Stored, because
-- ranking reads the vector of every matching row and recomputing it per query is what
-- would cost; the writer's INSERTs name their columns, so they need no change.
ALTER TABLE facts ADD COLUMN IF NOT EXISTS search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple'::regconfig, subject || ' ' || predicate || ' ' || object), 'A')
    || setweight(to_tsvector('simple'::regconfig, coalesce(source_quote, '')), 'B')
) STORED;
-- Searches read believed rows only (invalid_at IS NULL), like the tenants' vector indexes.
CREATE INDEX IF NOT EXISTS facts_search_tsv ON facts USING gin (search_tsv)
    WHERE invalid_at IS NULL;
-- Copies whose valid time had ended when they were written keep no vector of their own
-- (streams/store/valid_ends.py); searches of the past find them by their original's
-- vector, reading them through this index rather than the whole table.
CREATE INDEX IF NOT EXISTS facts_vectorless_copies ON facts (dataset, project_id, copy_of)
    WHERE embedding IS NULL AND copy_of IS NOT NULL AND invalid_at IS NULL;
