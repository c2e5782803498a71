-- factstream storage, version 1. Every table carries dataset + project_id and every
-- query filters on both. {{EMBEDDING_DIM}} is replaced by the embedding_dim setting.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS schema_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- The ledger: one row per episode, with the seed's statuses, retry counts and claims.
CREATE TABLE IF NOT EXISTS episodes (
    dataset               text        NOT NULL,
    project_id            text        NOT NULL,
    episode_id            text        NOT NULL,
    session_id            text        NOT NULL,
    event_id              text        NOT NULL,
    from_seq              integer     NOT NULL,
    to_seq                integer     NOT NULL,
    transcript            jsonb       NOT NULL,
    completed_at          timestamptz NOT NULL,
    summary               text,
    summary_embedding     vector({{EMBEDDING_DIM}}),
    status                text        NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'processing', 'done', 'failed', 'skipped')),
    retry_count           integer     NOT NULL DEFAULT 0,
    last_error            text,
    semantic_status       text        NOT NULL DEFAULT 'pending'
        CHECK (semantic_status IN ('pending', 'processing', 'done', 'failed', 'skipped')),
    semantic_retry_count  integer     NOT NULL DEFAULT 0,
    semantic_last_error   text,
    claimed_at            timestamptz,
    claimed_by            text,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, project_id, episode_id)
);
CREATE INDEX IF NOT EXISTS episodes_semantic_status
    ON episodes (dataset, project_id, semantic_status);
CREATE INDEX IF NOT EXISTS episodes_sweep
    ON episodes (semantic_status, status, updated_at);

CREATE TABLE IF NOT EXISTS entities (
    id          bigserial   PRIMARY KEY,
    dataset     text        NOT NULL,
    project_id  text        NOT NULL,
    name        text        NOT NULL,
    type        text        NOT NULL,
    embedding   vector({{EMBEDDING_DIM}}),
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- Type-aware: apple the ORG and apple the FOOD are two rows.
    UNIQUE (dataset, project_id, name, type)
);
CREATE INDEX IF NOT EXISTS entities_by_name ON entities (dataset, project_id, name);
CREATE INDEX IF NOT EXISTS entities_embedding_hnsw
    ON entities USING hnsw (embedding vector_cosine_ops);

-- Bi-temporal facts. Valid time: valid_from / valid_until (when it was true in the
-- user's world). Transaction time: created_at / invalid_at (when we believed it).
-- History is never deleted; a row leaves the live set by invalid_at.
CREATE TABLE IF NOT EXISTS facts (
    id                 bigserial   PRIMARY KEY,
    dataset            text        NOT NULL,
    project_id         text        NOT NULL,
    subject            text        NOT NULL,
    predicate          text        NOT NULL,
    object             text        NOT NULL,
    kind               text        NOT NULL CHECK (kind IN ('relationship', 'literal')),
    subject_entity_id  bigint      REFERENCES entities (id),
    object_entity_id   bigint      REFERENCES entities (id),
    confidence         real        NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    source_quote       text        NOT NULL DEFAULT '',
    episode_id         text        NOT NULL,
    embedding          vector({{EMBEDDING_DIM}}),
    valid_from         timestamptz,
    valid_until        timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    invalid_at         timestamptz,
    invalidated_by     bigint      REFERENCES facts (id),
    invalid_reason     text
        CHECK (invalid_reason IN ('superseded', 'closed', 'cascade', 'renewed')),
    CHECK ((invalid_at IS NULL) = (invalid_reason IS NULL))
);
-- At most one live row per (tenant, subject, predicate, object): the final backstop.
CREATE UNIQUE INDEX IF NOT EXISTS facts_live_unique
    ON facts (dataset, project_id, subject, predicate, object) WHERE invalid_at IS NULL;
CREATE INDEX IF NOT EXISTS facts_live_by_subject_predicate
    ON facts (dataset, project_id, subject, predicate) WHERE invalid_at IS NULL;
CREATE INDEX IF NOT EXISTS facts_live_by_object
    ON facts (dataset, project_id, object_entity_id) WHERE invalid_at IS NULL;
CREATE INDEX IF NOT EXISTS facts_live_recent
    ON facts (dataset, project_id, created_at DESC) WHERE invalid_at IS NULL;
CREATE INDEX IF NOT EXISTS facts_by_episode ON facts (dataset, project_id, episode_id);
CREATE INDEX IF NOT EXISTS facts_embedding_hnsw
    ON facts USING hnsw (embedding vector_cosine_ops) WHERE invalid_at IS NULL;

-- What each guard, dedup, judge and write step dropped, and why (`factstream trace`).
CREATE TABLE IF NOT EXISTS fact_drops (
    id          bigserial   PRIMARY KEY,
    dataset     text        NOT NULL,
    project_id  text        NOT NULL,
    episode_id  text        NOT NULL,
    stage       text        NOT NULL,
    reason      text        NOT NULL,
    detail      text        NOT NULL DEFAULT '',
    subject     text        NOT NULL DEFAULT '',
    predicate   text        NOT NULL DEFAULT '',
    object      text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS fact_drops_by_episode ON fact_drops (dataset, project_id, episode_id);

-- The seed's Playground: every model request and response.
CREATE TABLE IF NOT EXISTS llm_calls (
    id             bigserial   PRIMARY KEY,
    dataset        text        NOT NULL,
    project_id     text        NOT NULL,
    episode_id     text        NOT NULL,
    stage          text        NOT NULL,
    kind           text        NOT NULL,  -- extract | judge | summarize | embed
    model          text        NOT NULL,
    request        jsonb       NOT NULL,
    response       jsonb,
    input_tokens   integer,
    output_tokens  integer,
    latency_ms     double precision NOT NULL,
    attempts       integer     NOT NULL DEFAULT 1,
    error          text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS llm_calls_by_episode ON llm_calls (dataset, project_id, episode_id);

-- The writer's bookkeeping: the last offset applied per (group, topic, partition), in
-- the same transaction as the facts, so a redelivered record is a no-op.
CREATE TABLE IF NOT EXISTS consumed_offsets (
    consumer_group  text        NOT NULL,
    topic           text        NOT NULL,
    partition       integer     NOT NULL,
    last_offset     bigint      NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, topic, partition)
);
