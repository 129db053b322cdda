-- Every context build counts the user's journal entries (P5 opens beyond 100; the bundle
-- reports the count). At 10,000 entries the planner prefers a heap scan (435 pages, ~2 ms) to
-- the (user_id, created_at, turn_id) index (129 pages); this one, deduplicated to a few pages,
-- makes the count an index-only scan (~0.8 ms).
CREATE INDEX journal_user_idx ON journal (user_id);
