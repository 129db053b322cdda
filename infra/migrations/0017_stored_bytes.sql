-- What each user stores, kept up to date as files come, change and go: the upload's quota check
-- summed the sizes of all the user's files, a read that grew with every file they had (a user
-- of 5,000 files paid for 5,000 rows, and more for their dead versions, on every upload).
ALTER TABLE users ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE users u SET stored_bytes = (SELECT coalesce(sum(size), 0) FROM files f WHERE f.user_id = u.id);

CREATE FUNCTION count_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE users SET stored_bytes = stored_bytes - OLD.size WHERE id = OLD.user_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE users SET stored_bytes = stored_bytes + NEW.size WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER files_stored_bytes AFTER INSERT OR DELETE OR UPDATE OF size ON files
    FOR EACH ROW EXECUTE FUNCTION count_stored_bytes();
