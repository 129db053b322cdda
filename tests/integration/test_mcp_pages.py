"""The MCP server's list tools read a page at a time: the first 100, and `next` to pass back as
`before`; a cursor no page handed out is the tool's error, in words."""

from datetime import UTC, datetime, timedelta

import asyncpg
import httpx
import pytest

from shared.launcher.stack import Stack
from tests.integration.test_list_pages import add_files, newest_first
from tests.integration.test_mcp_http import call, error_text, key_of, mcp_session

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_list_files_pages_and_filters_through_mcp(
    system: Stack, api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    ready = await add_files(db, user_id, 145, newest=now)
    failed = await add_files(db, user_id, 5, newest=now - timedelta(days=1), status="failed")
    async with mcp_session(system.gateway_url, key_of(api_client)) as mcp:
        first = await call(mcp, "list_files")
        rest = await call(mcp, "list_files", before=first["next"])
        assert len(first["files"]) == 100 and rest["next"] is None
        listed = [f["id"] for f in first["files"] + rest["files"]]
        assert listed == newest_first(ready + failed)

        only_failed = await call(mcp, "list_files", status="failed")
        assert [f["id"] for f in only_failed["files"]] == newest_first(failed)

        refused = await mcp.call_tool("list_files", {"before": "garbage"})
        assert "`before`" in error_text(refused)
        assert (await call(mcp, "list_memory")) == {"facts": [], "next": None}
