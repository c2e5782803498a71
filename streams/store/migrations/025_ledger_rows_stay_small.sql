-- The ledger's rows are rewritten as an episode moves on (summary done, queued, claimed,
-- written), each time as a whole new row version: every column, its WAL and, later, the
-- vacuum of the old one. Its largest column is the summary's vector (3 KB at 768 dims),
-- which nothing reads back, so it is kept in the TOAST table: written there once, and
-- every later version of the row carries an 18-byte pointer to it. The default target
-- (2 KB) also shrinks a long transcript (compressed, or moved out when still too large)
-- the same way, once, rather than copying it whole into every version.
ALTER TABLE episodes ALTER COLUMN summary_embedding SET STORAGE EXTERNAL;
ALTER TABLE episodes RESET (toast_tuple_target);
