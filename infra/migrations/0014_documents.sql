-- Documents made by a tool the answering model calls (issue 14, seed 004): a meeting summary of an
-- attached file, written from the file's stored text by the tool itself (the prompt carried only an
-- `[Attached: name]` reference). Each item cites the passage it came from (chunk id and an exact
-- quote), so `items` holds the structure and `body` the Markdown a user downloads.
CREATE TABLE documents (
    id          UUID PRIMARY KEY,
    user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('meeting_summary')),
    title       TEXT NOT NULL,
    -- the file it was made from; a deleted file leaves its summary (the quotes are in the items)
    file_id     UUID REFERENCES files(id) ON DELETE SET NULL,
    filename    TEXT NOT NULL,
    turn_id     UUID,  -- the chat turn whose answer made it (the turn is stored after the tool ran)
    body        TEXT NOT NULL,
    items       JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- the list, newest first
CREATE INDEX documents_user_created_idx ON documents (user_id, created_at DESC, id DESC);
-- a retried request stores its document once
CREATE UNIQUE INDEX documents_turn_file_kind_idx ON documents (turn_id, file_id, kind)
    WHERE turn_id IS NOT NULL;
