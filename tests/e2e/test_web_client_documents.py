"""Documents in the web client: a meeting transcript ticked as the source of "Summarise this
meeting" becomes a stored summary; the answer's link opens it in the Documents panel (never a
page that would need the key), its items' chips open the cited passages, Download saves the
Markdown, Delete removes it."""

import pytest
from playwright.async_api import Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser, screenshot
from tests.e2e.web import open_app, text_file
from tests.fixtures.meeting_transcript import STANDUP_TRANSCRIPT

pytestmark = pytest.mark.e2e
TRANSCRIPT = "weekly-sync.txt"
SAVED_TURNS = ".turn[data-turn-id]:not([data-turn-id=''])"


async def test_a_meeting_summary_opens_from_the_answer_with_cited_items_and_downloads(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.locator("#file-input").set_input_files(text_file(TRANSCRIPT, STANDUP_TRANSCRIPT))
    await page.locator("#files-button").click()
    source = page.get_by_role("checkbox", name=f"Use {TRANSCRIPT} for answers")
    await expect(source).to_be_enabled(timeout=60_000)  # ready: only then can it be ticked
    await source.check()
    await page.locator("#files-button").click()

    await page.locator("#message").fill("Summarise this meeting")
    await page.keyboard.press("Enter")
    link = page.locator(f"{SAVED_TURNS} .answer a[href*='/v1/documents/']")
    await expect(link).to_have_count(1, timeout=60_000)
    [made] = (await web_user.client.get("/v1/documents")).json()["items"]
    await expect(link).to_have_attribute("href", made["download_url"])

    await link.click()
    panel = page.locator("#documents-panel")
    await expect(panel.locator(".document-title")).to_have_text(made["title"])
    assert len(page.context.pages) == 1, "the link opened a page of its own"
    text = panel.locator(".document-text")
    await expect(text).to_contain_text("usage tiers from April")
    await expect(text).to_contain_text("migrate the billing service")
    chips = text.locator("button.cite")
    await expect(chips).to_have_count(made["item_count"])
    await screenshot(page, "document")

    await chips.first.click()
    dialog = page.locator("#citation-dialog")
    await expect(dialog.locator("h2")).to_contain_text(TRANSCRIPT)
    await expect(dialog.locator("mark")).not_to_be_empty()
    await page.keyboard.press("Escape")
    await expect(dialog).not_to_be_visible()

    async with page.expect_download() as downloading:
        await panel.get_by_role("button", name="Download (.md)").click()
    saved = await downloading.value
    assert saved.suggested_filename.endswith(".md")
    exported = await web_user.client.get(made["download_url"])
    assert (await saved.path()).read_text() == exported.text
    assert "usage tiers from April" in exported.text

    await panel.get_by_role("button", name="Delete", exact=True).click()  # confirm() accepted
    await expect(panel.locator(".document-list, p.muted").first).to_contain_text("No documents yet")
    assert (await web_user.client.get("/v1/documents")).json()["items"] == []
    await panel.focus()
    await page.keyboard.press("Escape")
    await expect(panel).to_be_hidden()
    await expect(page.get_by_role("button", name="Documents")).to_be_focused()
