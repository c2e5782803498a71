-- Keep embeddings inside their rows. pgvector's type defaults to STORAGE external, so any
-- row over ~2 KB (a 768-dim vector is 3 KB) had its vector moved to the TOAST table: every
-- insert wrote it there too and every read fetched it back. For the exact scans small
-- tenants get (dedup, judge, resolve: up to 2,000 rows) that made a 2,000-row scan take
-- ~20 ms instead of ~4 ms (measured with 768 dims on this Postgres). MAIN keeps a vector
-- inline whenever the row fits a page and moves it out only as a last resort, so a
-- 3072-dim vector (12 KB) still works. Applies to rows written from now on.
ALTER TABLE facts ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE entities ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE episodes ALTER COLUMN summary_embedding SET STORAGE MAIN;
