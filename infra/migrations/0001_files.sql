-- Users, files and their chunks. Every row is owned by a user and every query is scoped by it.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE users (
    id           UUID PRIMARY KEY,
    name         TEXT NOT NULL,
    api_key_hash TEXT NOT NULL UNIQUE,  -- sha256 of the key; the key itself is never stored
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE files (
    id               UUID PRIMARY KEY,
    user_id          UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    filename         TEXT NOT NULL,
    media_type       TEXT NOT NULL,
    size             BIGINT NOT NULL,
    content_hash     TEXT NOT NULL,
    file_type        TEXT CHECK (file_type IN ('strategic', 'factual', 'mixed')),
    status           TEXT NOT NULL DEFAULT 'processing'
                     CHECK (status IN ('processing', 'ready', 'failed')),
    processing_stage TEXT NOT NULL DEFAULT 'uploaded',
    progress         INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    total_chunks     INTEGER NOT NULL DEFAULT 0,
    processed_chunks INTEGER NOT NULL DEFAULT 0,
    error_message    TEXT,
    attempt          INTEGER NOT NULL DEFAULT 1,
    summary          TEXT,
    uploaded_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (user_id, content_hash)
);
CREATE INDEX files_user_uploaded_idx ON files (user_id, uploaded_at DESC);

-- The uploaded bytes and the extracted text, kept apart so listing files stays light.
CREATE TABLE file_contents (
    file_id UUID PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    data    BYTEA NOT NULL,
    text    TEXT
);

CREATE TABLE file_chunks (
    id                   UUID PRIMARY KEY,
    file_id              UUID NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    user_id              UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    chunk_index          INTEGER NOT NULL,
    chunk_type           TEXT NOT NULL CHECK (chunk_type IN ('strategic', 'factual')),
    title                TEXT NOT NULL DEFAULT '',
    char_start           INTEGER NOT NULL,
    char_end             INTEGER NOT NULL,  -- exclusive
    line_start           INTEGER NOT NULL,
    line_end             INTEGER NOT NULL,
    text                 TEXT NOT NULL,     -- the exact source slice; the raw content of factual chunks
    chunk_essence        TEXT,
    decision_arc_summary TEXT,
    salience_score       INTEGER CHECK (salience_score BETWEEN 1 AND 10),
    embedding            vector(1024),
    search_vector        tsvector GENERATED ALWAYS AS (
                             to_tsvector('english', title || ' ' || text)) STORED,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (file_id, chunk_index),
    CHECK (char_start < char_end)
);
CREATE INDEX file_chunks_user_idx ON file_chunks (user_id);
CREATE INDEX file_chunks_search_idx ON file_chunks USING gin (search_vector);
CREATE INDEX file_chunks_embedding_idx ON file_chunks USING hnsw (embedding vector_cosine_ops);
