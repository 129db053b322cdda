"""The bytes each user stores (what the storage quota compares) follow their files: kept by a
trigger as files are uploaded, updated in place and deleted, never summed per upload."""

import asyncpg
import httpx

from shared.db.storage import stored_bytes
from tests.helpers import rolled_back, wait_for_status


async def test_the_stored_total_follows_uploads_updates_and_deletes(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    async def stored() -> tuple[int, int]:
        """The kept total, and the sum it stands for."""
        row = await db.fetchrow(
            """SELECT u.stored_bytes AS kept,
                      (SELECT coalesce(sum(size), 0) FROM files WHERE user_id = u.id) AS summed
               FROM users u WHERE u.id = $1""",
            api_client.user_id,
        )
        return row["kept"], row["summed"]

    first, second = b"# Plan\n\nWe ship on Friday.\n", b"# Log\n\nThe build passed twice.\n"
    uploaded = await api_client.post(
        "/v1/files", files=[("files", ("plan.md", first)), ("files", ("log.md", second))]
    )
    plan, log = uploaded.json()["items"]
    assert await stored() == (len(first) + len(second),) * 2

    await wait_for_status(api_client, plan["id"], "ready")
    revised = b"# Plan\n\nWe ship on Monday instead, after the review.\n"
    response = await api_client.put(
        f"/v1/files/{plan['id']}", files=[("files", ("plan.md", revised))]
    )
    assert response.status_code == 202, response.text
    assert await stored() == (len(revised) + len(second),) * 2

    await wait_for_status(api_client, log["id"], "ready")
    assert (await api_client.delete(f"/v1/files/{log['id']}")).status_code == 204
    assert await stored() == (len(revised),) * 2


async def test_the_quota_check_finds_which_uploaded_hashes_the_user_already_stores(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id
    hashes = ["hash-7", "hash-2999"] + [f"new-{i}" for i in range(98)]  # one request's worth
    # the user's 3,000 files exist only in this transaction, rolled back at the end
    async with rolled_back(db) as conn:
        await conn.execute(
            """INSERT INTO files (id, user_id, filename, media_type, size, content_hash,
                                  status, processing_stage, progress)
               SELECT gen_random_uuid(), $1, 'f' || i || '.txt', 'text/plain', 10,
                      'hash-' || i, 'ready', 'ready', 100
               FROM generate_series(1, 3000) AS i""",
            user_id,
        )
        found = await stored_bytes(conn, user_id=user_id, content_hashes=hashes)
    assert found == (30_000, {"hash-7", "hash-2999"})
