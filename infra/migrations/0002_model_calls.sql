-- Every model call, local or remote, with what it cost and which file (or, later, turn) it served.
CREATE TABLE model_calls (
    id                BIGSERIAL PRIMARY KEY,
    user_id           UUID REFERENCES users(id) ON DELETE CASCADE,
    file_id           UUID REFERENCES files(id) ON DELETE CASCADE,
    turn_id           UUID,
    role              TEXT NOT NULL,  -- classify | chunk | compress | verify | summarise | embed | answer
    provider          TEXT NOT NULL,  -- local | openai-compatible | voyage | openai
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms        INTEGER NOT NULL,
    cost_usd          NUMERIC(12, 6) NOT NULL DEFAULT 0,
    outcome           TEXT NOT NULL DEFAULT 'ok',  -- ok | invalid | error
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX model_calls_file_idx ON model_calls (file_id, created_at);
CREATE INDEX model_calls_user_idx ON model_calls (user_id, created_at);

-- A short summary per section (chunk), for summary questions (seed 003).
ALTER TABLE file_chunks ADD COLUMN summary TEXT;
