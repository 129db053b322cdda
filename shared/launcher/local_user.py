"""The local user of `artisan up`: this instance's admin, known by its id (users.is_local), never
by its name, with its API key in a file only its owner can read, from the file's first byte."""

import asyncio
import os
import secrets
import tempfile
from pathlib import Path

import asyncpg

from shared.db import users

LOCAL_USER = "local"


def ensure_local_user(database_url: str, key_file: Path) -> str:
    """The API key of the local user, created (or re-keyed if its key file is lost or holds
    another user's key) as needed; it is created an admin (it may connect models in Settings)."""
    saved_key = key_file.read_text().strip() if key_file.exists() else None
    key, is_new = asyncio.run(_local_user_key(database_url, saved_key))
    if is_new:
        write_private_file(key_file, key + "\n")
    return key


def write_private_file(path: Path, text: str) -> None:
    """Put `text` at `path`, readable by its owner only: written to a new file beside it that
    mkstemp creates 0600, then renamed over it, so no moment shows the key with wider
    permissions or a reader half a key."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


async def _local_user_key(database_url: str, saved_key: str | None) -> tuple[str, bool]:
    """The saved key if it is still the local user's, else a new one (True: it must be saved)."""
    conn = await asyncpg.connect(database_url)
    try:
        local = await users.find_local_user(conn)
        if local is None:
            _, key = await users.create_user(
                conn, name=await _free_local_name(conn), admin=True, local=True
            )
            return key, True
        if saved_key is not None:
            owner = await users.find_user_by_api_key(conn, api_key=saved_key)
            if owner is not None and owner.id == local.id:
                return saved_key, False
        return await users.rotate_api_key(conn, user_id=local.id), True
    finally:
        await conn.close()


async def _free_local_name(conn: asyncpg.Connection) -> str:
    """'local', unless someone took that name before the first `artisan up`."""
    if await users.find_user_by_name(conn, name=LOCAL_USER) is None:
        return LOCAL_USER
    return f"{LOCAL_USER}-{secrets.token_hex(4)}"
