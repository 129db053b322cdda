-- Files that update in place (issue 14): PUT /v1/files/{id} makes a new version of the same file.
-- The new version is built beside the live one, which stays searchable until the new one is
-- ready; then one transaction switches (shared/db/files.py mark_ready). A failed update leaves
-- the live version as it was (the trigger below, whichever path fails the file).

-- version: the newest accepted version (being processed, or live); live_version: the one search
-- reads, NULL until a first version is ready
ALTER TABLE files ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE files ADD COLUMN live_version INTEGER;
ALTER TABLE files ADD COLUMN reused_chunks INTEGER NOT NULL DEFAULT 0;
UPDATE files SET live_version = 1 WHERE status = 'ready';

-- each version's bytes and text; the older one is dropped when a newer one goes live
ALTER TABLE file_contents ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE file_contents ADD COLUMN content_hash TEXT;
UPDATE file_contents c SET content_hash = f.content_hash FROM files f WHERE f.id = c.file_id;
ALTER TABLE file_contents ALTER COLUMN content_hash SET NOT NULL;
ALTER TABLE file_contents DROP CONSTRAINT file_contents_pkey;
ALTER TABLE file_contents ADD PRIMARY KEY (file_id, version);

-- A chunk belongs to versions version_from .. version_to - 1 (version_to NULL: to the newest).
-- An unchanged chunk is shared by the old and the new version (same id, cut and vector); a
-- replaced one keeps its row, unsearchable, so the turns that cited it still resolve. Search
-- reads only searchable chunks: the live version's. `pending` holds a shared chunk's place in
-- the version being built (index, offsets), applied when that version goes live.
ALTER TABLE file_chunks ADD COLUMN version_from INTEGER NOT NULL DEFAULT 1;
ALTER TABLE file_chunks ADD COLUMN version_to INTEGER;
ALTER TABLE file_chunks ADD COLUMN searchable BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE file_chunks ADD COLUMN pending JSONB;
-- two versions' chunks share positions while the new one is built
ALTER TABLE file_chunks DROP CONSTRAINT file_chunks_file_id_chunk_index_key;
CREATE INDEX file_chunks_file_index_idx ON file_chunks (file_id, chunk_index);
-- BM25's corpus side counts only searchable chunks, still from an index-only scan
DROP INDEX file_chunks_user_length_idx;
CREATE INDEX file_chunks_user_length_idx ON file_chunks (user_id, file_id) INCLUDE (term_count)
    WHERE searchable;

-- BM25's inverted index holds searchable chunks only: a chunk enters it when it goes live and
-- leaves it when it is replaced
CREATE OR REPLACE FUNCTION chunk_terms_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM chunk_terms WHERE chunk_id = OLD.id;
    END IF;
    IF NEW.searchable THEN
        INSERT INTO chunk_terms (user_id, lexeme, chunk_id, file_id, tf, term_count)
        SELECT NEW.user_id, t.lexeme, NEW.id, NEW.file_id,
               coalesce(array_length(t.positions, 1), 1), NEW.term_count
        FROM unnest(NEW.search_vector) AS t;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER chunk_terms_on_update ON file_chunks;
CREATE TRIGGER chunk_terms_on_update AFTER UPDATE ON file_chunks
    FOR EACH ROW
    WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector
          OR OLD.term_count IS DISTINCT FROM NEW.term_count
          OR OLD.searchable IS DISTINCT FROM NEW.searchable)
    EXECUTE FUNCTION chunk_terms_refresh();

-- A failed update never fails the file: whatever marks it failed (a step's last delivery, a
-- dead letter, a stalled re-drive), the version being built is dropped and the live one stays,
-- ready, with the update's reason in error_message.
CREATE FUNCTION abandon_failed_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    live_hash TEXT;
    live_size BIGINT;
    live_chunks INTEGER;
BEGIN
    DELETE FROM file_chunks WHERE file_id = NEW.id AND version_from > OLD.live_version;
    UPDATE file_chunks SET version_to = NULL WHERE file_id = NEW.id AND version_to > OLD.live_version;
    UPDATE file_chunks SET pending = NULL WHERE file_id = NEW.id AND pending IS NOT NULL;
    DELETE FROM file_contents WHERE file_id = NEW.id AND version > OLD.live_version;
    SELECT content_hash, octet_length(data) INTO live_hash, live_size
        FROM file_contents WHERE file_id = NEW.id AND version = OLD.live_version;
    SELECT count(*) INTO live_chunks FROM file_chunks WHERE file_id = NEW.id AND searchable;
    NEW.status := 'ready';
    NEW.processing_stage := 'ready';
    NEW.progress := 100;
    NEW.error_message := format('The update to version %s failed: %s Version %s is still the one'
        ' searched; fix the file and update it again.', OLD.version, NEW.error_message,
        OLD.live_version);
    NEW.version := OLD.live_version;
    NEW.content_hash := live_hash;
    NEW.size := live_size;
    NEW.total_chunks := live_chunks;
    NEW.processed_chunks := live_chunks;
    NEW.reused_chunks := 0;
    RETURN NEW;
END $$;

CREATE TRIGGER files_update_failed BEFORE UPDATE OF status ON files
    FOR EACH ROW
    WHEN (NEW.status = 'failed' AND OLD.live_version IS NOT NULL
          AND OLD.version > OLD.live_version)
    EXECUTE FUNCTION abandon_failed_update();
