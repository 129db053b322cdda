"""An upload's row and bytes are stored by one statement (shared/db/files.py insert_file): one
round trip before the gateway can announce the queued file, and the row stamped as its bytes are
stored rather than at a transaction's BEGIN (issue 15: its SSE event looked 100 ms late)."""

import hashlib
from typing import Any

import asyncpg
import pytest

from shared.db import files, users

pytestmark = pytest.mark.asyncio(loop_scope="session")


class CountedStatements:
    """A connection that counts the statements sent through it."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn, self.statements = conn, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    async def fetchrow(self, *args: Any) -> Any:
        self.statements += 1
        return await self.conn.fetchrow(*args)

    async def execute(self, *args: Any) -> Any:
        self.statements += 1
        return await self.conn.execute(*args)


async def test_an_upload_is_one_statement_and_stamped_when_its_bytes_are_stored(
    db: asyncpg.Pool,
) -> None:
    user, _ = await users.create_user(db, name="uploader")
    data = b"quarterly numbers " * 20_000
    digest = hashlib.sha256(data).hexdigest()
    async with db.acquire() as conn:
        counted = CountedStatements(conn)
        started = await conn.fetchval("SELECT clock_timestamp()")
        row, duplicate = await files.insert_file(
            counted,  # type: ignore[arg-type]
            user_id=user.id,
            filename="numbers.txt",
            media_type="text/plain",
            content_hash=digest,
            data=data,
        )
        assert counted.statements == 1
        assert not duplicate and row["processing_stage"] == "queued"
        assert row["updated_at"] > started and row["updated_at"] >= row["uploaded_at"]
        stored = await conn.fetchval("SELECT data FROM file_contents WHERE file_id = $1", row["id"])
        assert stored == data
        again, duplicate = await files.insert_file(
            conn,
            user_id=user.id,
            filename="copy.txt",
            media_type="text/plain",
            content_hash=digest,
            data=data,
        )
        assert duplicate and again["id"] == row["id"]
