-- A big tenant's new vectors wait outside its HNSW graph (streams/store/graph_tail.py):
-- graph_pending is true on a row written while the tenant had a graph of its own, NULL
-- otherwise. The tenant's graph holds only rows with graph_pending IS NULL, so writing a
-- row costs no graph insert; searches scan the pending rows (the "tail") exactly beside
-- the graph walk, and the sweep grafts them in batches (sets graph_pending to NULL).
ALTER TABLE facts ADD COLUMN IF NOT EXISTS graph_pending boolean;
ALTER TABLE entities ADD COLUMN IF NOT EXISTS graph_pending boolean;
CREATE INDEX IF NOT EXISTS facts_graph_tail
    ON facts (dataset, project_id, subject) WHERE graph_pending AND invalid_at IS NULL;
CREATE INDEX IF NOT EXISTS entities_graph_tail
    ON entities (dataset, project_id, type) WHERE graph_pending;
