"""The web client's panels and edges in headless Chromium: memory per persona, a narrow
screen, quoted HTML shown as text, paged history, the keyboard alone."""

import asyncio

import pytest
from playwright.async_api import Locator, Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser, screenshot
from tests.e2e.web import open_app
from tests.helpers import upload, wait_for_status, wait_journaled

pytestmark = pytest.mark.e2e


async def test_instructions_and_facts_are_listed_per_persona_and_can_be_forgotten(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.get_by_role("radio", name="Gunnar").click()
    await expect(page.locator("#message")).to_have_attribute("placeholder", "Message Gunnar…")
    await page.locator("#message").fill("Gunnar, from now on, never use sports analogies.")
    await page.keyboard.press("Enter")
    await expect(page.locator(".turn[data-turn-id]:not([data-turn-id=''])")).to_have_count(1)

    await page.get_by_role("button", name="Memory", exact=True).click()
    panel = page.locator("#memory-panel")

    async def instructions_of(persona: str) -> Locator:
        await page.get_by_role("radio", name=persona).click()
        section = panel.locator(".memory-section", has_text=f"Only for {persona}")
        await expect(section).to_be_visible()  # the panel has been refreshed for this persona
        return section

    for _ in range(100):  # the instruction appears once the turn is journaled
        await instructions_of("Vlad")
        assert await panel.locator("li", has_text="sports analogies").count() == 0, "vlad saw it"
        own = await instructions_of("Gunnar")
        if await own.locator("li", has_text="sports analogies").count():
            break
        await asyncio.sleep(0.2)
    await expect(own.locator("li")).to_contain_text("sports analogies")

    await own.get_by_role("button", name="Forget this instruction").first.click()
    await expect(own.locator("li")).to_have_count(0)
    await expect(page.locator(".turn[data-turn-id]")).to_have_count(0)  # its turn went with it
    instructions = (await web_user.client.get("/v1/instructions")).json()["items"]
    assert instructions == []

    # a durable fact learned from a turn, forgotten from the same panel
    await page.locator("#message").fill("My name is Maya Chen.")
    await page.keyboard.press("Enter")
    known = panel.locator(".memory-section", has_text="What Artisan knows")
    for _ in range(100):
        await page.get_by_role("button", name="Memory", exact=True).click()  # closed
        await page.get_by_role("button", name="Memory", exact=True).click()  # opened again: re-read
        if await known.locator("li").count():
            break
        await asyncio.sleep(0.2)
    await expect(known.locator("li")).to_contain_text("The user's name is Maya Chen.")
    await known.get_by_role("button", name="Forget this fact").click()
    await expect(known.locator("li")).to_have_count(0)
    assert (await web_user.client.get("/v1/memory")).json()["items"] == []


async def test_an_instruction_that_names_no_advisor_is_listed_for_every_advisor(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.get_by_role("radio", name="Ananya").click()
    await page.locator("#message").fill("Always answer in English.")
    await page.keyboard.press("Enter")
    await expect(page.locator(".turn[data-turn-id]:not([data-turn-id=''])")).to_have_count(1)
    await expect(page.locator(".turn").last).to_contain_text("every advisor will answer in English")

    await page.get_by_role("radio", name="Vlad").click()
    await page.get_by_role("button", name="Memory", exact=True).click()
    everyone = page.locator("#memory-panel .memory-section", has_text="For every advisor")
    for _ in range(100):  # listed once the turn is journaled
        await page.get_by_role("button", name="Memory", exact=True).click()  # closed
        await page.get_by_role("button", name="Memory", exact=True).click()  # opened: re-read
        if await everyone.locator("li", has_text="Always answer in English.").count():
            break
        await asyncio.sleep(0.2)
    await expect(everyone.locator("li")).to_contain_text("For every advisor · told to ananya")


async def test_a_question_about_you_is_answered_from_what_you_told_it(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.get_by_role("radio", name="Gunnar").click()
    told = "I am Maya Chen, the CEO of Brightloop. I prefer short answers."
    await page.locator("#message").fill(told)
    await page.keyboard.press("Enter")
    turns = page.locator(".turn[data-turn-id]:not([data-turn-id=''])")
    await expect(turns).to_have_count(1)
    await expect(turns.last.locator(".answer")).to_contain_text("your name is Maya Chen")
    await wait_journaled(web_user.client, [await turns.last.get_attribute("data-turn-id")])

    await page.locator("#message").fill("What is my name?")
    await page.keyboard.press("Enter")
    await expect(turns).to_have_count(2)
    await expect(turns.last.locator(".answer")).to_contain_text("Your name is Maya Chen.")
    await turns.last.locator(".answer .cite").first.click()
    dialog = page.locator("#citation-dialog")
    await expect(dialog.locator("h2")).to_contain_text("What Artisan knows")
    await expect(dialog.locator("mark")).to_have_text("The user's name is Maya Chen.")
    await page.keyboard.press("Escape")


async def test_usable_at_375_pixels(page: Page, web_system: Stack, web_user: WebUser) -> None:
    await page.set_viewport_size({"width": 375, "height": 812})
    await open_app(page, web_system, web_user)
    for control in ("Upload files", "Send", "Files", "Memory"):
        await expect(page.get_by_role("button", name=control, exact=True)).to_be_in_viewport()
    overflow = await page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 375
    await page.get_by_role("button", name="Files", exact=True).click()
    await expect(page.locator("#files-dropdown")).to_be_in_viewport()
    await screenshot(page, "narrow")


async def test_html_in_a_quoted_passage_is_shown_as_text_never_run(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    payload = '<img src=x onerror="window.pwned=1">'
    notes = f"# Launch notes\n\nThe launch codename is Bluebird {payload} and it ships in May.\n"
    record = await upload(web_user.client, "launch.md", notes)
    await wait_for_status(web_user.client, record["id"], "ready")
    await open_app(page, web_system, web_user)
    await page.locator("#message").fill("What is the launch codename?")
    await page.keyboard.press("Enter")
    answer = page.locator(".turn[data-turn-id]:not([data-turn-id='']) .answer")
    # the chat service takes the tag out of the answer (docs/answers-and-links.md); the web
    # client would show it as text: either way nothing of it runs
    await expect(answer).to_contain_text("The launch codename is Bluebird")
    await expect(answer).to_contain_text("and it ships in May")
    assert await answer.locator("img").count() == 0
    assert await page.evaluate("window.pwned") is None


async def test_history_loads_on_open_and_older_pages_on_scroll(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    turns = [
        {
            "persona": "kirby",
            "user_message": f"Question number {n}",
            "ai_response": f"Answer number {n}",
            "created_at": f"2026-01-01T10:{n:02d}:00Z",
        }
        for n in range(45)
    ]
    response = await web_user.client.post("/v1/turns/import", json={"turns": turns})
    assert response.status_code == 202, response.text
    await open_app(page, web_system, web_user)
    shown = page.locator(".turn .user-text")
    await expect(shown).to_have_count(20)  # the newest page, newest at the bottom
    await expect(shown.last).to_have_text("Question number 44")
    for expected in (40, 45):
        await page.locator("#conversation").evaluate("box => { box.scrollTop = 0; }")
        await expect(shown).to_have_count(expected)
    await expect(shown.first).to_have_text("Question number 0")


async def test_keyboard_alone_sends_and_works_the_file_menu(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await expect(page.locator("#message")).to_be_focused()
    await page.keyboard.type("Who are you?")
    await page.keyboard.press("Enter")
    await expect(page.locator(".turn[data-turn-id]:not([data-turn-id=''])")).to_have_count(1)
    await expect(page.locator("#message")).to_have_value("")
    await page.keyboard.press("Tab")
    await expect(page.get_by_role("button", name="Send", exact=True)).to_be_focused()
    await page.keyboard.press("Tab")
    await expect(page.locator("#files-button")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#files-dropdown")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.locator("#files-dropdown")).to_be_hidden()
    await expect(page.locator("#files-button")).to_be_focused()
