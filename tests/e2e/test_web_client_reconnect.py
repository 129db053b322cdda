"""The web client's progress stream survives a gateway restart (runs after the other web client
tests: it restarts the gateway they share)."""

import re

import pytest
from playwright.async_api import Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser
from tests.e2e.web import file_row, open_app
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.e2e


async def test_progress_reconnects_after_a_gateway_restart(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await expect(page.locator("body[data-stream=open]")).to_have_count(1)
    web_system.supervisor.kill("gateway")
    try:
        await expect(page.locator("#connection")).to_be_visible(timeout=15_000)
        # it says so, and when it tries again (issue 29, finding 13)
        await expect(page.locator("#connection")).to_contain_text(
            re.compile(r"Lost the connection to Artisan; retrying in \d+ s…")
        )
    finally:
        web_system.supervisor.start("gateway")  # the other tests need it back in any case
    await expect(page.locator("#connection")).to_be_hidden(timeout=30_000)

    # a file uploaded elsewhere (the CLI, another tab) shows up live on the reconnected stream
    record = await upload(web_user.client, "later.md", documents.markdown())
    await wait_for_status(web_user.client, record["id"], "ready")
    await page.locator("#files-button").click()
    await expect(file_row(page, "later.md")).to_have_attribute("data-status", "ready")
