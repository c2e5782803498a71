-- Lookups that must not read a tenant's whole live set (bench/ scenario (c): 100k live facts
-- per tenant). All are small btrees over live rows only.
--
-- (subject, object): the guards' "which names is the user linked to" and the writer's
-- "does another live user link to this entity remain" ask by subject and object;
-- facts_live_unique has predicate in between, so they skip-scanned every predicate of
-- the subject (~40 ms at 100k facts).
CREATE INDEX IF NOT EXISTS facts_live_by_subject_object
    ON facts (dataset, project_id, subject, object) WHERE invalid_at IS NULL;
-- (subject, lower(object)): the judge's same-object pairs (rule 2) match objects
-- case-insensitively; without it a candidate carrying a validUntil read every live fact
-- of its subject (~170 ms at 100k).
CREATE INDEX IF NOT EXISTS facts_live_by_subject_lower_object
    ON facts (dataset, project_id, subject, lower(object)) WHERE invalid_at IS NULL;
-- subject_entity_id: the writer's cascade finds an entity's own facts by name OR by id;
-- without this the id half was a sequential scan of the tenant (~60 ms at 100k facts).
CREATE INDEX IF NOT EXISTS facts_live_by_subject_entity
    ON facts (dataset, project_id, subject_entity_id) WHERE invalid_at IS NULL;
