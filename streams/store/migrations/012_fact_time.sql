-- The three clocks of a fact (DESIGN "Time: three clocks per fact").
--
-- stated_at: when the user said it, the episode's completed_at (event time). Rows written
-- before this migration take it from their episode's ledger row, or their created_at when
-- that row is gone.
ALTER TABLE facts ADD COLUMN IF NOT EXISTS stated_at timestamptz;
UPDATE facts f SET stated_at = e.completed_at
    FROM episodes e
    WHERE f.stated_at IS NULL AND e.dataset = f.dataset AND e.project_id = f.project_id
      AND e.episode_id = f.episode_id;
UPDATE facts SET stated_at = created_at WHERE stated_at IS NULL;
ALTER TABLE facts ALTER COLUMN stated_at SET DEFAULT now();
ALTER TABLE facts ALTER COLUMN stated_at SET NOT NULL;

-- Why a row's valid time ends, and by which row, when a later statement ended it: a
-- superseded fact and the facts anchored on it are copied with the end date (the
-- original is ended in transaction time), and the copy says what ended it. copy_of is the
-- row a copy continues. A valid_until the user stated themselves has no end_reason.
ALTER TABLE facts ADD COLUMN IF NOT EXISTS copy_of bigint REFERENCES facts (id);
ALTER TABLE facts ADD COLUMN IF NOT EXISTS ended_by bigint REFERENCES facts (id);
ALTER TABLE facts ADD COLUMN IF NOT EXISTS end_reason text
    CHECK (end_reason IN ('superseded', 'closed', 'cascade'));

-- The final backstop is one believed OPEN-ENDED row per triple. A row whose valid time
-- ended is history and stays believed beside a later row of the same triple ("member of
-- fitbox" until October, and again from December): before, such a row had to be ended in
-- transaction time ("renewed") for the new one to land, and a valid-time query by current
-- belief lost the first period. The writer keeps the other triples unique under the
-- tenant's lock.
DROP INDEX IF EXISTS facts_live_unique;
CREATE UNIQUE INDEX IF NOT EXISTS facts_open_unique
    ON facts (dataset, project_id, subject, predicate, object)
    WHERE invalid_at IS NULL AND valid_until IS NULL;
-- Every believed row of a triple (history included), for dedup's exact pass and the
-- writer's re-check.
CREATE INDEX IF NOT EXISTS facts_believed_by_triple
    ON facts (dataset, project_id, subject, predicate, object) WHERE invalid_at IS NULL;

-- A newer version of an episode that arrives while it is being extracted: extraction runs
-- again once the claim in flight ends (streams/store/episodes.py, mark_semantic_done).
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS newer_version_pending boolean NOT NULL DEFAULT false;
