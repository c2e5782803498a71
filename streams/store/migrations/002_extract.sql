-- Extraction claims are re-entrant for the record that took them: a runtime retry of the
-- same event by the same worker may take its own claim again, while a second event for
-- the same episode (a duplicate publish) does not re-extract while the first is in flight.
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS claim_event_id text;
-- The per-tenant gate looks for a tenant's fresh processing claims.
CREATE INDEX IF NOT EXISTS episodes_tenant_processing
    ON episodes (dataset, project_id, claimed_at) WHERE semantic_status = 'processing';
