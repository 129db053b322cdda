-- The outbox (issue 12): a request commits its work as rows; the gateway's dispatcher hands
-- them to the bus. A file waits in the 'queued' stage, a turn with published_at NULL, so a crash
-- between a commit and its publish strands nothing: the dispatcher publishes whatever it finds.
-- It releases each user's work a few files at a time (fair scheduling), and re-drives work that
-- went quiet while the bus had nothing left for it.

ALTER TABLE files ADD COLUMN redrives INTEGER NOT NULL DEFAULT 0;
-- the upload's W3C trace context: the dispatcher publishes in the upload's trace
ALTER TABLE files ADD COLUMN trace_context JSONB;
CREATE INDEX files_queued_idx ON files (user_id, uploaded_at, id)
    WHERE status = 'processing' AND processing_stage = 'queued';
CREATE INDEX files_processing_idx ON files (user_id, updated_at) WHERE status = 'processing';

-- turns stored before this migration were published when they were stored
ALTER TABLE superjournal ADD COLUMN published_at TIMESTAMPTZ;
UPDATE superjournal SET published_at = created_at;
ALTER TABLE superjournal ADD COLUMN journal_attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE superjournal ADD COLUMN trace_context JSONB;
CREATE INDEX superjournal_unpublished_idx ON superjournal (user_id, created_at, id)
    WHERE journal_status = 'pending' AND published_at IS NULL;
CREATE INDEX superjournal_pending_idx ON superjournal (user_id, published_at)
    WHERE journal_status = 'pending';

-- Wake the dispatcher when work arrives or a user's work in flight ends; it also polls, so a
-- lost notification only delays it.
CREATE FUNCTION notify_dispatcher() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('artisan_dispatch', '');
    RETURN NULL;
END $$;

CREATE TRIGGER files_queued_notify AFTER INSERT OR UPDATE OF processing_stage ON files
    FOR EACH ROW WHEN (NEW.processing_stage = 'queued') EXECUTE FUNCTION notify_dispatcher();
CREATE TRIGGER files_finished_notify AFTER UPDATE OF status ON files
    FOR EACH ROW WHEN (OLD.status = 'processing' AND NEW.status <> 'processing')
    EXECUTE FUNCTION notify_dispatcher();
CREATE TRIGGER files_deleted_notify AFTER DELETE ON files
    FOR EACH ROW WHEN (OLD.status = 'processing') EXECUTE FUNCTION notify_dispatcher();
CREATE TRIGGER turns_queued_notify AFTER INSERT OR UPDATE OF published_at ON superjournal
    FOR EACH ROW WHEN (NEW.published_at IS NULL) EXECUTE FUNCTION notify_dispatcher();
CREATE TRIGGER turns_finished_notify AFTER UPDATE OF journal_status ON superjournal
    FOR EACH ROW WHEN (OLD.journal_status = 'pending' AND NEW.journal_status <> 'pending')
    EXECUTE FUNCTION notify_dispatcher();
