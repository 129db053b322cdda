-- The dispatcher's round (services/gateway/outbox.py) counts each waiting user's files in flight
-- after every file that finishes. Through files_processing_idx that count read every file of
-- the user in processing, queued ones included: a user with a thousand files queued paid a
-- thousand index fetches per round. This index holds only the files in flight (a few per user),
-- which is also all the re-drive sweep looks at.
CREATE INDEX files_in_flight_idx ON files (user_id)
    WHERE status = 'processing' AND processing_stage <> 'queued';

-- Its updated_at made every progress update of a file write a new entry in every index of
-- files (no HOT update): without it, an update that moves only the progress stays on its page.
DROP INDEX files_processing_idx;
