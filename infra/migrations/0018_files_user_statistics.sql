-- No planner statistics for files.user_id. They are taken while some users have files; a user
-- who started uploading since is missing from them, and the planner takes that user for one
-- with no files. Then a lookup of one file, `id = $1 AND user_id = $2` (every pipeline step
-- makes several), read all of the user's files through files_user_uploaded_idx instead of one
-- entry of the primary key: a new user uploading 1,000 files read 1,300 index entries per file,
-- and more with every file. Without statistics the planner assumes 0.5% of the rows per user,
-- and the primary key wins once the table holds more than 200 files. (Below that, or with a
-- plan cached before, the choice is a tie: the hottest lookups, files.is_current_attempt and
-- files.load_text, compare the owner outside SQL and never offer the planner the choice.)
ALTER TABLE files ALTER COLUMN user_id SET STATISTICS 0;
-- ANALYZE leaves a column's existing statistics alone once it skips it; changing the column to
-- its own type drops them (the table is not rewritten, the indexes on user_id are rebuilt)
ALTER TABLE files ALTER COLUMN user_id TYPE UUID;
