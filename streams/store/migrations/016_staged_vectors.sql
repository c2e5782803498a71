-- Embeddings between dedup and the writer (streams/store/staged_vectors.py): a survivor's
-- vector is staged here by dedup and consumed by the writer's insert, instead of riding
-- as JSON floats on two topics. UNLOGGED: no WAL for rows that live seconds; after a
-- crash the table is empty and the writer asks the embedder again for what it lacks.
CREATE UNLOGGED TABLE IF NOT EXISTS staged_vectors (
    dataset     text        NOT NULL,
    project_id  text        NOT NULL,
    event_id    text        NOT NULL,
    ord         int         NOT NULL,
    embedding   vector({{EMBEDDING_DIM}}) NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, project_id, event_id, ord)
);
ALTER TABLE staged_vectors ALTER COLUMN embedding SET STORAGE MAIN;
-- The sweep purges what no writer consumed (an episode dead-lettered on the way).
CREATE INDEX IF NOT EXISTS staged_vectors_created ON staged_vectors (created_at);
