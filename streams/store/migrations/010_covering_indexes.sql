-- Indexes that answer the per-episode reads without visiting the table (bench (c): a
-- tenant's rows are ~700 bytes with their vector, so every heap visit is a page of its own
-- and a 100k-fact tenant outgrows the cache long before its indexes do).
--
-- Like every migration this runs in one transaction: the DROPs lock facts and entities
-- until the new indexes are built, so on a big installation run it in a quiet window.
--
-- The prompt context reads the tenant's newest live facts for the entities they mention
-- (streams/store/context.py): thousands of rows at 100k, now an index-only scan.
DROP INDEX IF EXISTS facts_live_recent;
CREATE INDEX IF NOT EXISTS facts_live_recent
    ON facts (dataset, project_id, created_at DESC)
    INCLUDE (subject_entity_id, object_entity_id, valid_until) WHERE invalid_at IS NULL;
-- Entities by name with their id and type: the exact-name match of resolution, the prompt
-- context's newest id per name, the extraction guards' types.
DROP INDEX IF EXISTS entities_by_name;
CREATE INDEX IF NOT EXISTS entities_by_name
    ON entities (dataset, project_id, name) INCLUDE (id, type);
-- Entities of one type: the nearest-neighbour search counts them to choose an exact scan
-- (32 ORG entities among 10k THINGs) over walking the tenant's graph.
CREATE INDEX IF NOT EXISTS entities_by_type ON entities (dataset, project_id, type);
