-- The local user of `artisan up` is this instance's admin by its id, no longer by its name: a user
-- someone else calls 'local' is neither it nor an admin for that name. At most one is marked.
ALTER TABLE users ADD COLUMN is_local BOOLEAN NOT NULL DEFAULT false;
CREATE UNIQUE INDEX users_one_local ON users (is_local) WHERE is_local;

-- Until now `artisan up` made every user called 'local' an admin; the oldest of them (an admin if
-- any is) is the one it created, and the others lose the admin they got for their name.
UPDATE users SET is_local = true
WHERE id = (SELECT id FROM users WHERE name = 'local' ORDER BY is_admin DESC, created_at, id LIMIT 1);
UPDATE users SET is_admin = false WHERE name = 'local' AND NOT is_local;

-- A name is one user (`artisan users revoke|rotate|admin NAME` act on it). A name already taken
-- twice stays with its oldest user (the local one first); each later one gets the first eight hex
-- digits of its id ('maya' becomes 'maya-1a2b3c4d'): every key keeps working, and the list shows
-- who is who.
UPDATE users u SET name = u.name || '-' || left(replace(u.id::text, '-', ''), 8)
FROM (
    SELECT id, row_number() OVER (PARTITION BY name ORDER BY is_local DESC, created_at, id) AS nth
    FROM users
) ranked
WHERE ranked.id = u.id AND ranked.nth > 1;
ALTER TABLE users ADD CONSTRAINT users_name_unique UNIQUE (name);
