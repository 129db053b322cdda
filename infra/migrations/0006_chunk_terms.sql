-- BM25's inverted index: one row per lexeme of each chunk, with its frequency there and the
-- chunk's length, so that a query's document frequencies are counted, and its chunks scored,
-- from this index alone. Through file_chunks each would cost a heap visit per chunk and a
-- detoasted tsvector per score (the round holding a common word of a question read ~1,000).
CREATE TABLE chunk_terms (
    user_id    UUID NOT NULL,
    lexeme     TEXT NOT NULL,
    chunk_id   UUID NOT NULL REFERENCES file_chunks(id) ON DELETE CASCADE,
    file_id    UUID NOT NULL,
    tf         SMALLINT NOT NULL,  -- the lexeme's positions in the chunk (a tsvector keeps 256)
    term_count INTEGER NOT NULL,   -- the chunk's length, as file_chunks.term_count
    PRIMARY KEY (user_id, lexeme, chunk_id) INCLUDE (file_id, tf, term_count)
);
CREATE INDEX chunk_terms_chunk_idx ON chunk_terms (chunk_id);  -- for the cascade

-- a chunk's rows follow its search_vector: written with it, rewritten when its text changes
CREATE FUNCTION chunk_terms_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM chunk_terms WHERE chunk_id = OLD.id;
    END IF;
    INSERT INTO chunk_terms (user_id, lexeme, chunk_id, file_id, tf, term_count)
    SELECT NEW.user_id, t.lexeme, NEW.id, NEW.file_id,
           coalesce(array_length(t.positions, 1), 1), NEW.term_count
    FROM unnest(NEW.search_vector) AS t;
    RETURN NULL;
END $$;

CREATE TRIGGER chunk_terms_on_insert AFTER INSERT ON file_chunks
    FOR EACH ROW EXECUTE FUNCTION chunk_terms_refresh();
CREATE TRIGGER chunk_terms_on_update AFTER UPDATE ON file_chunks
    FOR EACH ROW
    WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector
          OR OLD.term_count IS DISTINCT FROM NEW.term_count)
    EXECUTE FUNCTION chunk_terms_refresh();

INSERT INTO chunk_terms (user_id, lexeme, chunk_id, file_id, tf, term_count)
SELECT c.user_id, t.lexeme, c.id, c.file_id, coalesce(array_length(t.positions, 1), 1), c.term_count
FROM file_chunks c, unnest(c.search_vector) AS t;

-- the corpus side of BM25 (chunk count and mean length) from an index-only scan
CREATE INDEX file_chunks_user_length_idx ON file_chunks (user_id, file_id) INCLUDE (term_count);
