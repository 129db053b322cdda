-- P5 recalls old turns by what they say, not only by their cut's vector: BM25 over each
-- journaled turn's own words (the user's message, the answer) and its decision arc, from an
-- index of postings like chunk_terms (0006): one row per lexeme of a turn, with its frequency
-- there and the turn's length.
ALTER TABLE journal ADD COLUMN term_count INTEGER NOT NULL DEFAULT 1;

CREATE TABLE journal_terms (
    user_id    UUID NOT NULL,
    lexeme     TEXT NOT NULL,
    turn_id    UUID NOT NULL REFERENCES journal(turn_id) ON DELETE CASCADE,
    tf         SMALLINT NOT NULL,
    term_count INTEGER NOT NULL,
    PRIMARY KEY (user_id, lexeme, turn_id) INCLUDE (tf, term_count)
);
CREATE INDEX journal_terms_turn_idx ON journal_terms (turn_id);  -- for the cascade

-- the words a turn is found by: its superjournal row's message and answer, and the cut's arc
CREATE FUNCTION journal_search_vector(turn UUID, arc TEXT) RETURNS tsvector
LANGUAGE sql STABLE AS $$
    SELECT to_tsvector('english', s.user_message || ' ' || s.ai_response || ' ' || arc)
    FROM superjournal s WHERE s.id = turn
$$;

-- the length BM25 normalises by: the lexemes' occurrences (positions: a tsvector keeps 256)
CREATE FUNCTION tsvector_length(vec tsvector) RETURNS INTEGER
LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(coalesce(sum(coalesce(array_length(t.positions, 1), 1)), 0), 1)::int
    FROM unnest(vec) AS t
$$;

CREATE FUNCTION journal_terms_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    vec tsvector := coalesce(journal_search_vector(NEW.turn_id, NEW.decision_arc_summary), ''::tsvector);
    total INTEGER := tsvector_length(vec);
BEGIN
    UPDATE journal SET term_count = total WHERE turn_id = NEW.turn_id;
    INSERT INTO journal_terms (user_id, lexeme, turn_id, tf, term_count)
    SELECT NEW.user_id, t.lexeme, NEW.turn_id, coalesce(array_length(t.positions, 1), 1), total
    FROM unnest(vec) AS t;
    RETURN NULL;
END $$;

-- a cut is written once (ON CONFLICT DO NOTHING) and never rewritten: insert is enough
CREATE TRIGGER journal_terms_on_insert AFTER INSERT ON journal
    FOR EACH ROW EXECUTE FUNCTION journal_terms_write();

-- the journal written before this migration
WITH vectors AS (
    SELECT j.turn_id, j.user_id, journal_search_vector(j.turn_id, j.decision_arc_summary) AS vec
    FROM journal j
), lengths AS (
    UPDATE journal j SET term_count = tsvector_length(v.vec)
    FROM vectors v WHERE j.turn_id = v.turn_id
    RETURNING j.turn_id, j.term_count
)
INSERT INTO journal_terms (user_id, lexeme, turn_id, tf, term_count)
SELECT v.user_id, t.lexeme, v.turn_id, coalesce(array_length(t.positions, 1), 1), l.term_count
FROM vectors v JOIN lengths l USING (turn_id), unnest(v.vec) AS t;

-- the corpus side of BM25 (turn count and mean length) from an index-only scan; it also
-- serves the journal count, which 0007's index did alone
CREATE INDEX journal_user_length_idx ON journal (user_id) INCLUDE (term_count);
DROP INDEX journal_user_idx;
