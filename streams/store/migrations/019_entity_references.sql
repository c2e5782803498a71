-- Every fact that names an entity, live or history, by the entity's id: what the foreign
-- keys look up when an entity is deleted (the writer prunes an entity its episode made
-- that no surviving fact names, streams/store/entities.py prune_unreferenced). Without
-- them each delete would scan all facts.
CREATE INDEX IF NOT EXISTS facts_subject_entity_ref
    ON facts (subject_entity_id) WHERE subject_entity_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS facts_object_entity_ref
    ON facts (object_entity_id) WHERE object_entity_id IS NOT NULL;
