-- Conversations (issue 13): every turn belongs to one, and each has a persona. P1 (the last
-- turns) is read from the current conversation; starred turns, instructions, memory facts and the
-- journal keep spanning all of them. Deleting a conversation deletes its turns, and with them
-- (by the cascades of 0005) their journal rows, postings and memory facts.
CREATE TABLE conversations (
    id           UUID PRIMARY KEY,
    user_id      UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    persona_name TEXT NOT NULL,       -- who answers in it (a turn keeps the persona it had)
    title        TEXT,                -- NULL until named, or until its first question names it
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()  -- its latest turn (or its creation)
);
-- the list, newest first, and "this persona's latest conversation"
CREATE INDEX conversations_user_updated_idx ON conversations (user_id, updated_at DESC, id DESC);
CREATE INDEX conversations_user_persona_idx
    ON conversations (user_id, persona_name, updated_at DESC, id DESC);

ALTER TABLE superjournal
    ADD COLUMN conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE;

-- Turns stored before this migration: each user's go into one conversation, with the persona of
-- their latest turn, from their first turn's time to their last's.
INSERT INTO conversations (id, user_id, persona_name, title, created_at, updated_at)
SELECT gen_random_uuid(), latest.user_id, latest.persona_name, 'Earlier conversation',
       span.first_at, span.last_at
FROM (SELECT DISTINCT ON (user_id) user_id, persona_name FROM superjournal
      ORDER BY user_id, created_at DESC, id DESC) AS latest
JOIN (SELECT user_id, min(created_at) AS first_at, max(created_at) AS last_at FROM superjournal
      GROUP BY user_id) AS span USING (user_id);

UPDATE superjournal s SET conversation_id = c.id FROM conversations c WHERE c.user_id = s.user_id;

ALTER TABLE superjournal ALTER COLUMN conversation_id SET NOT NULL;
-- P1 and a conversation's turns, newest first; also the cascade's way in
CREATE INDEX superjournal_conversation_idx
    ON superjournal (conversation_id, created_at DESC, id DESC);
-- a conversation search reads journaled turns through journal_terms; the few others directly
CREATE INDEX superjournal_unjournaled_idx ON superjournal (user_id)
    WHERE journal_status <> 'journaled';
