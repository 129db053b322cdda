-- Updates in place no longer keep what they replaced (issue 29): a version going live deletes
-- the chunks it does not share with the one before (shared/db/chunks.py switch_version), as it
-- already deleted the older bytes. Those kept until now go here.
DELETE FROM file_chunks c USING files f
WHERE f.id = c.file_id AND c.version_to <= f.live_version;

-- The stored total follows every change of a file's size: a failed update's size is set back by
-- a BEFORE trigger (abandon_failed_update, 0013), which an `UPDATE OF size` trigger never saw,
-- so the total kept the failed version's bytes.
DROP TRIGGER files_stored_bytes ON files;
CREATE TRIGGER files_stored_bytes AFTER INSERT OR DELETE ON files
    FOR EACH ROW EXECUTE FUNCTION count_stored_bytes();
CREATE TRIGGER files_stored_bytes_changed AFTER UPDATE ON files
    FOR EACH ROW WHEN (OLD.size IS DISTINCT FROM NEW.size)
    EXECUTE FUNCTION count_stored_bytes();
UPDATE users u SET stored_bytes = (SELECT coalesce(sum(size), 0) FROM files f WHERE f.user_id = u.id);
