-- Rows with an embedding stay whole and uncompressed. A 768-dim vector makes a row ~3 KB,
-- past the 2 KB at which Postgres starts shrinking a row by default: on every insert it
-- tried pglz on the vector (random floats never compress) and compressed and moved every
-- text value over 24 bytes (a quote, an object, a transcript) to the TOAST table, one more
-- heap and index insert each, read back on every read. A target of a full page leaves a
-- row alone unless it does not fit one; a bigger row is still shrunk the same way.
ALTER TABLE facts SET (toast_tuple_target = 8160);
ALTER TABLE entities SET (toast_tuple_target = 8160);
ALTER TABLE episodes SET (toast_tuple_target = 8160);
ALTER TABLE staged_vectors SET (toast_tuple_target = 8160);
