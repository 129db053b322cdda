"""Signing out leaves nothing for the next person at that browser (issue 29, finding 11: it
removed only the key; the draft, the conversation and the chosen sources stayed)."""

import pytest
from playwright.async_api import Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser
from tests.e2e.web import file_row, open_app
from tests.fixtures import documents
from tests.helpers import client_for_new_user, upload, wait_for_status

pytestmark = pytest.mark.e2e

ARTISAN_ENTRIES = """() => [localStorage, sessionStorage].flatMap(
  (storage) => Object.keys(storage).filter((name) => name.startsWith("artisan.")))"""


async def test_sign_out_clears_the_key_draft_conversation_and_sources(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    record = await upload(web_user.client, "plan.md", documents.markdown())
    await wait_for_status(web_user.client, record["id"], "ready")
    await open_app(page, web_system, web_user)
    await page.locator("#files-button").click()
    await file_row(page, "plan.md").locator(".source-box").check()
    await expect(page.locator("#attachments .chip")).to_have_count(1)
    await page.locator("#message").fill("a draft for my eyes only")
    kept = await page.evaluate(ARTISAN_ENTRIES)
    assert {"artisan.apiKey", "artisan.sources"} <= set(kept), kept
    assert any(name.startswith("artisan.draft") for name in kept), kept

    await page.locator("#sign-out").click()
    await expect(page.locator("#key-screen")).to_be_visible()
    assert await page.evaluate(ARTISAN_ENTRIES) == []

    async with await client_for_new_user(web_system, "next-person") as other:
        await open_app(page, web_system, WebUser(other))
        await expect(page.locator("#message")).to_have_value("")
        await expect(page.locator("#attachments .chip")).to_have_count(0)
        await expect(page.locator("#attachments")).to_be_hidden()
        kept = await page.evaluate(ARTISAN_ENTRIES)
        assert "artisan.sources" not in kept and not any("draft" in name for name in kept)


async def test_another_key_starts_clean_where_an_older_sign_out_left_things(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    """What the sign-out of earlier versions left (all but the key) goes at the next sign-in."""
    await page.goto(web_system.gateway_url)
    await page.evaluate(
        """() => {
          localStorage.setItem("artisan.draft", "left behind by the previous person");
          localStorage.setItem("artisan.sources", JSON.stringify(["a-file-of-theirs"]));
          localStorage.setItem("artisan.conversation", "a-conversation-of-theirs");
        }"""
    )
    await page.reload()
    await open_app(page, web_system, web_user)
    await expect(page.locator("#message")).to_have_value("")
    kept = await page.evaluate("() => Object.entries(localStorage)")
    assert not any("theirs" in value or "previous person" in value for _, value in kept), kept
