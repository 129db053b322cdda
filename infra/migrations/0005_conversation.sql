-- Conversation memory (seeds 001, 002, 003): full turns, their Artisan Cuts, durable facts.

-- Every exchange in full: what the user said, what the persona answered, what it cited.
CREATE TABLE superjournal (
    id                UUID PRIMARY KEY,
    user_id           UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    persona_name      TEXT NOT NULL,
    user_message      TEXT NOT NULL,   -- secrets already redacted
    ai_response       TEXT NOT NULL,
    model             TEXT NOT NULL DEFAULT '',
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    attachments       UUID[] NOT NULL DEFAULT '{}',
    cited_chunk_ids   UUID[] NOT NULL DEFAULT '{}',
    citations         JSONB NOT NULL DEFAULT '[]',  -- the citation objects as the answer gave them
    context_sections  JSONB NOT NULL DEFAULT '[]',  -- section name and tokens, for inspection
    is_starred        BOOLEAN NOT NULL DEFAULT false,
    imported          BOOLEAN NOT NULL DEFAULT false,
    -- the turn's way into the journal: pending → journaled (or failed with the reason)
    journal_status    TEXT NOT NULL DEFAULT 'pending'
                      CHECK (journal_status IN ('pending', 'journaled', 'failed')),
    journal_error     TEXT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX superjournal_user_created_idx ON superjournal (user_id, created_at DESC, id DESC);
CREATE INDEX superjournal_starred_idx ON superjournal (user_id, created_at) WHERE is_starred;

-- The Artisan Cut of each turn; one row per turn, removed with it.
CREATE TABLE journal (
    turn_id              UUID PRIMARY KEY REFERENCES superjournal(id) ON DELETE CASCADE,
    user_id              UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    persona_name         TEXT NOT NULL,
    boss_essence         TEXT NOT NULL,
    persona_essence      TEXT NOT NULL,
    decision_arc_summary TEXT NOT NULL,
    salience_score       INTEGER NOT NULL CHECK (salience_score BETWEEN 1 AND 10),
    is_instruction       BOOLEAN NOT NULL DEFAULT false,
    instruction_scope    TEXT,  -- 'global' or a persona's name when is_instruction
    embedding            vector(1024),  -- of decision_arc_summary; the space of file_chunks
    created_at           TIMESTAMPTZ NOT NULL,  -- the turn's time (imported turns keep theirs)
    CHECK (NOT is_instruction OR instruction_scope IS NOT NULL)
);
CREATE INDEX journal_user_created_idx ON journal (user_id, created_at DESC, turn_id);
CREATE INDEX journal_instruction_scope_idx
    ON journal (user_id, instruction_scope, created_at) WHERE is_instruction;
CREATE INDEX journal_embedding_idx ON journal USING hnsw (embedding vector_cosine_ops);

-- Durable facts about the user and their company (seed 001), each from one turn.
CREATE TABLE memory_facts (
    id         UUID PRIMARY KEY,
    user_id    UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('user', 'company')),
    fact       TEXT NOT NULL,
    fact_key   TEXT NOT NULL,  -- normalised fact: duplicates collapse onto one row
    confidence REAL NOT NULL CHECK (confidence > 0.8 AND confidence <= 1),
    turn_id    UUID NOT NULL REFERENCES superjournal(id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (user_id, kind, fact_key)
);
