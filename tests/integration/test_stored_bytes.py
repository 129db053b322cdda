"""The bytes each user stores (what the storage quota compares) follow their files: kept by a
trigger as files are uploaded, updated in place and deleted, never summed per upload."""

import asyncpg
import httpx

from tests.helpers import wait_for_status


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
