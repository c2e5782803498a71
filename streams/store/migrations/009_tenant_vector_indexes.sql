-- Vector indexes per big tenant instead of one over everyone (streams/store/tenant_indexes.py).
-- Searches read an HNSW index only for tenants above ScanTuning.exact_below rows, yet every
-- insert of every tenant paid for the global one (~7-10 ms per 768-dim row into a 10k-row
-- graph). The sweep now builds a partial index per tenant past the threshold. On an
-- existing database with big tenants, their searches are exact plain scans (complete, only
-- slower) until the sweep has built their indexes, one per pass.
DROP INDEX IF EXISTS facts_embedding_hnsw;
DROP INDEX IF EXISTS entities_embedding_hnsw;
