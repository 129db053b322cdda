"""The composer never loses words: a failed send keeps them (with a Retry), so does a reload; a
counter near the limit and no Send past it; Stop; and per answer copy, regenerate and
edit-and-resend, citations numbered from 1 and the Context expander kept after a reload."""

import json

import pytest
from playwright.async_api import Page, Route, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser, screenshot
from tests.e2e.web import open_app
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.e2e

SAVED_TURNS = ".turn[data-turn-id]:not([data-turn-id=''])"


async def open_empty(page: Page, system: Stack, user: WebUser) -> None:
    """The app open for a new user, its (empty) history loaded: a turn sent earlier would be
    cleared by the load."""
    await open_app(page, system, user)
    await expect(page.locator("#empty-state")).to_be_visible()


QUESTION = "Why did we move to usage tiers?"


async def test_a_failed_send_keeps_the_words_and_retry_sends_them(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_empty(page, web_system, web_user)
    box = page.locator("#message")

    async def gateway_down(route: Route) -> None:
        await route.abort("connectionrefused")

    await page.route("**/v1/chat", gateway_down)
    await box.fill(QUESTION)
    await page.keyboard.press("Enter")
    failed = page.locator(".turn.failed")
    await expect(failed.locator(".error-text")).to_contain_text("Can't reach Artisan")
    await expect(failed.locator(".error-text")).to_contain_text("your message is back in the box")
    await expect(box).to_have_value(QUESTION)
    await expect(box).to_be_editable()
    await screenshot(page, "composer")

    # refused by the server (over its limit, say): the server's words, and the text kept
    async def too_long(route: Route) -> None:
        detail = "The message has 20001 characters; the limit is 20000. Shorten it."
        await route.fulfill(status=413, json={"detail": detail})

    await page.unroute("**/v1/chat")
    await page.route("**/v1/chat", too_long)
    await failed.get_by_role("button", name="Retry").click()
    await expect(page.locator(".turn.failed .error-text")).to_contain_text("Shorten it.")
    await expect(page.locator(".turn.unsaved")).to_have_count(1)  # the retry replaced it
    await expect(box).to_have_value(QUESTION)

    # the draft survives a reload
    await box.fill(f"{QUESTION} And what did it cost us?")
    await page.reload()
    await expect(box).to_have_value(f"{QUESTION} And what did it cost us?")
    await expect(page.locator("#empty-state")).to_be_visible()  # nothing was stored

    # back up: Retry is an ordinary send, and the box empties once the answer is accepted
    await page.unroute("**/v1/chat")
    await box.fill(QUESTION)
    await page.keyboard.press("Enter")
    await expect(page.locator(SAVED_TURNS)).to_have_count(1, timeout=30_000)
    await expect(box).to_have_value("")
    await page.reload()
    await expect(box).to_have_value("")  # the sent draft is gone too


async def test_the_counter_shows_near_the_limit_and_send_stops_past_it(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_empty(page, web_system, web_user)
    limit = (await web_user.client.get("/v1/chat/limits")).json()["max_message_chars"]
    counter = page.locator("#message-count")
    box = page.locator("#message")
    await box.fill("x" * (limit // 2))
    await expect(counter).to_be_hidden()
    await box.fill("x" * (limit - 10))
    await expect(counter).to_be_visible()
    await expect(counter).not_to_have_class("message-count over")
    await expect(page.locator("#send")).to_be_enabled()
    await box.fill("x" * (limit + 5))
    await expect(counter).to_have_class("message-count over")
    await expect(counter).to_contain_text("5 characters too many")
    await expect(page.locator("#send")).to_be_disabled()
    await box.press("Enter")
    await expect(page.locator(".turn")).to_have_count(0)  # nothing sent, nothing lost
    await expect(box).to_have_value("x" * (limit + 5))


async def test_stop_ends_an_answer_that_hangs(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_empty(page, web_system, web_user)
    held: list[Route] = []

    async def hang(route: Route) -> None:
        held.append(route)  # never answered: a gateway that hangs

    await page.route("**/v1/chat", hang)
    await page.locator("#message").fill(QUESTION)
    await page.keyboard.press("Enter")
    await expect(page.locator("#stop")).to_be_visible()
    await expect(page.locator("#send")).to_be_hidden()
    await page.get_by_role("button", name="Stop the answer").click()
    stopped = page.locator(".turn.stopped")
    await expect(stopped.locator(".stopped-text")).to_contain_text("not saved")
    await expect(page.locator("#send")).to_be_visible()
    await expect(page.locator("#message")).to_have_value(QUESTION)
    assert len(held) == 1


async def test_copy_regenerate_edit_numbering_and_context_after_reload(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    memo = await upload(web_user.client, "pricing.md", documents.markdown())
    await wait_for_status(web_user.client, memo["id"], "ready")
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await open_empty(page, web_system, web_user)
    for question in ("What did customers ask for?", QUESTION):  # earlier turns take low ranks
        await page.locator("#message").fill(question)
        await page.keyboard.press("Enter")
        await expect(page.locator("#stop")).to_be_hidden(timeout=30_000)
    turns = page.locator(SAVED_TURNS)
    await expect(turns).to_have_count(2)
    turn = turns.last

    # citations 1…n in the answer and the source list
    await expect(turn.locator(".answer .cite").first).to_have_text("1")
    refs = await turn.locator(".sources .source-ref").all_text_contents()
    assert refs == [str(n) for n in range(1, len(refs) + 1)] and refs

    # the Context expander, again after a reload
    summary = await turn.locator(".context-used summary").text_content()
    assert summary and summary.startswith("Context: ")
    turn_id = await turn.get_attribute("data-turn-id")
    await page.reload()
    turn = page.locator(f'.turn[data-turn-id="{turn_id}"]')
    await expect(turn.locator(".context-used summary")).to_have_text(summary)

    # copy: the answer with [N] markers and its numbered sources
    await turn.get_by_role("button", name="Copy the answer and its sources").click()
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert "[Ref:" not in copied and "[1]" in copied
    assert "\n\nSources:\n1. pricing.md" in copied

    # regenerate: a new answer replaces the turn, in the page and in the history
    await turn.get_by_role("button", name="Regenerate this answer (it replaces this one)").click()
    await expect(page.locator(f'.turn[data-turn-id="{turn_id}"]')).to_have_count(0, timeout=30_000)
    await expect(page.locator(SAVED_TURNS)).to_have_count(2)
    assert (await web_user.client.get(f"/v1/turns/{turn_id}")).status_code == 404
    listed = (await web_user.client.get("/v1/turns")).json()["items"]
    assert [t["user_message"] for t in listed] == [QUESTION, "What did customers ask for?"]

    # edit and resend: the message back in the box, sent as a new turn
    newest = page.locator(SAVED_TURNS).last
    await newest.get_by_role("button", name="Edit this message and send it again").click()
    box = page.locator("#message")
    await expect(box).to_have_value(QUESTION)
    await expect(box).to_be_focused()
    await box.press("End")
    await box.type(" In one sentence.")
    await box.press("Enter")
    await expect(page.locator(SAVED_TURNS)).to_have_count(3, timeout=30_000)
    await expect(page.locator(SAVED_TURNS).last.locator(".user-text")).to_have_text(
        f"{QUESTION} In one sentence."
    )
    stored = (await web_user.client.get("/v1/turns?limit=1")).json()["items"][0]
    assert json.dumps(stored["citations"]).count('"ref": 1') == 1 or not stored["citations"]
