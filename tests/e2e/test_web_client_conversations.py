"""Conversations in headless Chromium (issue 13, item 2): the list beside the chat; switching
persona switches conversation; start, rename, search, reload, export and delete."""

import pytest
from playwright.async_api import Locator, Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser, screenshot
from tests.e2e.web import open_app
from tests.helpers import import_turns, wait_journaled

pytestmark = pytest.mark.e2e

EARLIER = [
    {
        "persona": "vlad",
        "user_message": "Which markets should we enter first?",
        "ai_response": "The Nordics, then Germany.",
        "created_at": "2026-03-02T09:00:00Z",
    },
    {
        "persona": "vlad",
        "user_message": "And how do we staff the Nordics office?",
        "ai_response": "Two sellers from Oslo.",
        "created_at": "2026-03-02T09:05:00Z",
    },
]


def row(page: Page, title: str) -> Locator:
    return page.locator("#conversation-list .conversation-row", has_text=title)


def shown_questions(page: Page) -> Locator:
    return page.locator("#messages .turn .user-text")


async def test_conversations_start_switch_rename_search_export_and_delete(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    records = await import_turns(web_user.client, EARLIER)
    await wait_journaled(web_user.client, [r["id"] for r in records])
    await open_app(page, web_system, web_user)

    # the latest conversation opens, with its persona chosen
    await expect(page.locator("#conversations-panel")).to_be_visible()
    earlier = row(page, "Which markets should we enter first?")
    await expect(earlier).to_have_class("conversation-row current")
    await expect(earlier).to_contain_text("Vlad · 2 turns")
    await expect(page.get_by_role("radio", name="Vlad")).to_have_attribute("aria-checked", "true")
    await expect(shown_questions(page)).to_have_text([t["user_message"] for t in EARLIER])

    # another persona: its own conversation, started by the first question
    await page.get_by_role("radio", name="Gunnar").click()
    await expect(page.locator("#empty-state")).to_be_visible()
    await ask(page, "Who are you?")
    gunnar = row(page, "Who are you?")
    await expect(gunnar).to_have_class("conversation-row current")
    await expect(gunnar).to_contain_text("Gunnar · 1 turn")

    # back to Vlad: his conversation, without the turn with Gunnar, in what he sees too
    await page.get_by_role("radio", name="Vlad").click()
    await expect(shown_questions(page)).to_have_text([t["user_message"] for t in EARLIER])
    await expect(earlier).to_have_class("conversation-row current")
    context = await web_user.client.get(
        "/v1/context/preview", params={"persona": "vlad", "q": "Who are you?"}
    )
    recent = next(s for s in context.json()["sections"] if s["name"] == "recent_turns")
    assert [item["id"] for item in recent["items"]] == [r["id"] for r in records]

    renamed = await start_and_rename(page, web_user)
    await search_reload_export_and_delete(page, earlier, renamed)
    for record in records:
        assert (await web_user.client.get(f"/v1/turns/{record['id']}")).status_code == 404


async def start_and_rename(page: Page, web_user: WebUser) -> Locator:
    """A new conversation with Vlad, named by its first question, then renamed in place."""
    await page.get_by_role("button", name="New conversation").click()
    fresh = row(page, "New conversation")
    await expect(fresh).to_have_class("conversation-row current")
    await expect(page.locator("#empty-state")).to_be_visible()
    await ask(page, "What is your role?")
    asked = row(page, "What is your role?")
    await expect(asked).to_have_class("conversation-row current")
    await asked.get_by_role("button", name="Rename").click()
    title = page.get_by_role("textbox", name="Conversation title")
    await expect(title).to_be_focused()
    await title.fill("Vlad on his role")
    await title.press("Enter")
    renamed = row(page, "Vlad on his role")
    await expect(renamed).to_have_class("conversation-row current")
    listed = (await web_user.client.get("/v1/conversations")).json()["items"]
    assert listed[0]["title"] == "Vlad on his role"
    return renamed


async def search_reload_export_and_delete(page: Page, earlier: Locator, renamed: Locator) -> None:
    # search: by what was said, every word of it
    search = page.get_by_role("searchbox", name="Search conversations")
    await search.fill("Nordics office")
    await expect(page.locator("#conversation-list .conversation-row")).to_have_count(1)
    await expect(earlier).to_be_visible()
    await search.fill("")
    await expect(page.locator("#conversation-list .conversation-row")).to_have_count(3)
    await screenshot(page, "conversations")

    # a reload shows the same conversation
    await page.reload()
    await expect(renamed).to_have_class("conversation-row current")
    await expect(shown_questions(page)).to_have_text(["What is your role?"])

    # export: a Markdown file named after it
    async with page.expect_download() as download_info:
        await renamed.get_by_role("button", name="Export").click()
    download = await download_info.value
    assert download.suggested_filename.startswith("vlad-on-his-role-")
    assert download.suggested_filename.endswith(".md")
    markdown = (await download.path()).read_text(encoding="utf-8")
    assert markdown.startswith("# Vlad on his role\n") and "**You:** What is your role?" in markdown

    # delete (confirmed): the conversation and its turns are gone
    await earlier.get_by_role("button", name="Delete").click()
    await expect(earlier).to_have_count(0)
    await expect(page.locator("#conversation-list .conversation-row")).to_have_count(2)


async def test_the_list_works_from_the_keyboard_and_on_a_phone(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await import_turns(web_user.client, EARLIER)
    await page.set_viewport_size({"width": 375, "height": 812})
    await open_app(page, web_system, web_user)
    panel = page.locator("#conversations-panel")
    await expect(panel).to_be_hidden()  # a phone shows the chat; the list is one tap away
    toggle = page.get_by_role("button", name="Conversations", exact=True)
    await toggle.click()
    await expect(toggle).to_have_attribute("aria-expanded", "true")
    await expect(panel).to_be_in_viewport()
    assert await page.evaluate("document.documentElement.scrollWidth") <= 375
    await expect(page.get_by_role("searchbox", name="Search conversations")).to_be_focused()
    await expect(page.locator(".conversation-open")).to_have_count(1)  # listed
    await page.keyboard.press("Tab")
    await expect(page.locator(".conversation-open").first).to_be_focused()
    await page.keyboard.press("Enter")  # opening one closes the list on a phone
    await expect(panel).to_be_hidden()
    await expect(shown_questions(page)).to_have_count(2)
    await toggle.click()
    await page.keyboard.press("Escape")
    await expect(panel).to_be_hidden()
    await expect(toggle).to_be_focused()


async def ask(page: Page, question: str) -> None:
    done = page.locator(".turn[data-turn-id]:not([data-turn-id=''])")
    count = await done.count()
    await page.locator("#message").fill(question)
    await page.keyboard.press("Enter")
    await expect(done).to_have_count(count + 1)
