-- Lists are read a page at a time, newest first, after a cursor: `(uploaded_at, id) < ($2, $3)
-- ORDER BY uploaded_at DESC, id DESC LIMIT n` (shared/db/cursors.py). An index in exactly that
-- order makes every page one range of n entries, whatever the user holds: the first page of
-- 100,000 files reads what the first page of 100 reads (tests/benchmarks/list_latency.py).
CREATE INDEX files_user_listed_idx ON files (user_id, uploaded_at DESC, id DESC);
-- GET /v1/files?status=failed: a few failed files among 100,000 ready ones are one range too
CREATE INDEX files_user_status_listed_idx ON files (user_id, status, uploaded_at DESC, id DESC);
-- (user_id, uploaded_at DESC) is the start of the first: every query it served, it still serves
DROP INDEX files_user_uploaded_idx;

CREATE INDEX memory_facts_user_listed_idx ON memory_facts (user_id, created_at DESC, id DESC);

-- the journal is listed by (created_at DESC, turn_id DESC): its index kept turn_id ascending, so
-- a page sorted each run of equal times, and a cursor's row comparison could not bound the scan
CREATE INDEX journal_user_listed_idx ON journal (user_id, created_at DESC, turn_id DESC);
DROP INDEX journal_user_created_idx;
