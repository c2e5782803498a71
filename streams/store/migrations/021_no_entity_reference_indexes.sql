-- Two indexes an earlier 019 added on facts(subject_entity_id) and facts(object_entity_id),
-- for the foreign keys' lookups when the writer deletes an orphan entity, led the planner
-- to scan them across all tenants for the prompt context's queries (bench (a): extract's
-- Postgres time per episode six times higher). Orphan deletes are rare; they pay the scan.
DROP INDEX IF EXISTS facts_subject_entity_ref;
DROP INDEX IF EXISTS facts_object_entity_ref;
