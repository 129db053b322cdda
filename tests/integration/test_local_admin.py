"""The local user of `artisan up` is the admin by its id, never by its name, and a name is one
user: each test on a database of its own, on the session's PostgreSQL server."""

import asyncio
import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from shared.db import users
from shared.db.migrations import apply_migrations, migration_files
from shared.launcher.local_user import LOCAL_USER, ensure_local_user
from shared.launcher.stack import Stack

pytestmark = pytest.mark.asyncio(loop_scope="session")
UNIQUE_NAMES = "0021_unique_user_names.sql"


@pytest.fixture
async def empty_database(system: Stack) -> AsyncIterator[str]:
    """The URL of a new, empty database (not yet migrated)."""
    name = f"local_admin_{uuid.uuid4().hex[:8]}"
    server = await asyncpg.connect(system.database_url)
    try:
        await server.execute(f"CREATE DATABASE {name}")
        yield urlsplit(system.database_url)._replace(path=f"/{name}").geturl()
        await server.execute(f"DROP DATABASE {name} WITH (FORCE)")
    finally:
        await server.close()


@pytest.fixture
async def database(empty_database: str) -> AsyncIterator[asyncpg.Connection]:
    await apply_migrations(empty_database)
    conn = await asyncpg.connect(empty_database)
    yield conn
    await conn.close()


async def test_a_user_someone_named_local_is_neither_re_keyed_nor_made_admin(
    database: asyncpg.Connection, empty_database: str, tmp_path: Path
) -> None:
    squatter, squatter_key = await users.create_user(database, name=LOCAL_USER)
    key = await _ensure_local_user(empty_database, tmp_path / "local-user.key")

    admin = await users.find_user_by_api_key(database, api_key=key)
    assert admin is not None and admin.is_admin and admin.id != squatter.id
    assert admin.name.startswith(f"{LOCAL_USER}-")
    still = await users.find_user_by_api_key(database, api_key=squatter_key)
    assert still is not None and still.id == squatter.id, "its key still works"
    assert not still.is_admin


async def test_the_local_user_keeps_its_key_and_is_re_keyed_only_by_id(
    database: asyncpg.Connection, empty_database: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "local-user.key"
    key = await _ensure_local_user(empty_database, key_file)
    assert await _ensure_local_user(empty_database, key_file) == key, "a restart keeps it"
    local = await users.find_user_by_api_key(database, api_key=key)
    assert local is not None and local.name == LOCAL_USER and local.is_admin

    with pytest.raises(users.UserNameTaken, match="a user named 'local' already exists"):
        await users.create_user(database, name=LOCAL_USER)
    _, other_key = await users.create_user(database, name="someone")
    key_file.write_text(other_key + "\n")  # another user's key where the local one's belongs
    new_key = await _ensure_local_user(empty_database, key_file)
    assert new_key != other_key and key_file.read_text() == new_key + "\n"
    rekeyed = await users.find_user_by_api_key(database, api_key=new_key)
    assert rekeyed is not None and rekeyed.id == local.id
    someone = await users.find_user_by_api_key(database, api_key=other_key)
    assert someone is not None and not someone.is_admin


async def test_names_taken_twice_before_the_migration_become_one_user_each(
    empty_database: str, tmp_path: Path
) -> None:
    before = tmp_path / "before"
    before.mkdir()
    for path in migration_files():
        if path.name < UNIQUE_NAMES:
            shutil.copy(path, before)
    await apply_migrations(empty_database, before)
    conn = await asyncpg.connect(empty_database)
    try:
        # as `artisan up` left them: every user called 'local' an admin
        rows = [("local", True), ("maya", False), ("local", True), ("maya", False)]
        for n, (name, admin) in enumerate(rows):
            await conn.execute(
                "INSERT INTO users (id, name, api_key_hash, is_admin, created_at)"
                " VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))",
                uuid.uuid4(),
                name,
                f"hash-{n}",
                admin,
                n,
            )
        await apply_migrations(empty_database)
        after = await conn.fetch("SELECT name, is_admin, is_local FROM users ORDER BY created_at")
    finally:
        await conn.close()
    names = [row["name"] for row in after]
    assert names[:2] == ["local", "maya"], "the oldest keeps the name"
    assert names[2].startswith("local-") and names[3].startswith("maya-")
    assert [(row["is_admin"], row["is_local"]) for row in after] == [
        (True, True),
        (False, False),
        (False, False),  # admin only for its name, until now
        (False, False),
    ]


async def _ensure_local_user(database_url: str, key_file: Path) -> str:
    """ensure_local_user runs its own event loop, as `artisan up` does: off this one."""
    return await asyncio.to_thread(ensure_local_user, database_url, key_file)
