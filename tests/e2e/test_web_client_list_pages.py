"""Long lists in the web client come a page at a time and load more as you scroll: 230 files
show 100 at first (the badge says "100+"), then all of them once the list is scrolled to its end."""

from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from playwright.async_api import Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser
from tests.e2e.web import open_app
from tests.helpers import upload
from tests.integration.test_list_pages import add_files

pytestmark = pytest.mark.e2e


async def test_the_file_list_loads_more_as_it_is_scrolled(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    first = await upload(web_user.client, "first.md", "# First\n\nThe first note.\n")
    conn = await asyncpg.connect(web_system.database_url)
    try:
        user_id = await conn.fetchval("SELECT user_id FROM files WHERE id = $1", first["id"])
        older = datetime.now(UTC) - timedelta(days=1)
        await add_files(conn, user_id, 229, newest=older)
    finally:
        await conn.close()
    requested: list[str] = []
    page.on("request", lambda r: "/v1/files?" in r.url and requested.append(r.url))

    await open_app(page, web_system, web_user)
    badge = page.locator("#files-badge")
    await expect(badge).to_have_text("100+", timeout=30_000)  # once first.md is ready
    await page.locator("#files-button").click()
    rows = page.locator("#file-list .file-row[data-file-id]")
    await expect(rows).to_have_count(100)
    more = page.locator("#file-list .more-row button")
    for shown in (200, 230):
        await more.scroll_into_view_if_needed()  # reading to the end of the list loads more
        await expect(rows).to_have_count(shown)
    await expect(more).to_have_count(0)
    await expect(badge).to_have_text("230")
    await expect(page.locator("#file-list .file-row", has_text="note-229.md")).to_have_count(1)
    assert sum("before=" in url for url in requested) == 2  # each page read once
