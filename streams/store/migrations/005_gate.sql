-- The per-tenant gate parks episodes instead of waiting for them (streams/store/episodes.py).
--
-- An episode that reaches extraction while another episode of its tenant is in flight is
-- `queued`; whoever ends the in-flight one (the writer, or an extraction that skipped or
-- failed) starts the tenant's OLDEST queued episode next. `arrival_seq` is that order: a
-- sequence value given when the row is first inserted, kept by every later upsert, so
-- the queue follows the order the tenant's episodes were published in.
ALTER TABLE episodes DROP CONSTRAINT IF EXISTS episodes_semantic_status_check;
ALTER TABLE episodes ADD CONSTRAINT episodes_semantic_status_check CHECK (
    semantic_status IN ('pending', 'queued', 'processing', 'done', 'failed', 'skipped'));
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS arrival_seq bigserial;
-- The consumed record ("<topic>/<partition>/<offset>") whose handling took the claim: the
-- same worker handling that same record again (a restart with a stable instance id, the
-- record redelivered because its output never committed) takes its claim back at once.
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS claim_record text;
-- claim_next and the sweep's backstop look for a tenant's oldest queued episode.
CREATE INDEX IF NOT EXISTS episodes_tenant_queued
    ON episodes (dataset, project_id, arrival_seq) WHERE semantic_status = 'queued';
CREATE INDEX IF NOT EXISTS episodes_queued
    ON episodes (updated_at) WHERE semantic_status = 'queued';
