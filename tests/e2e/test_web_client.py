"""The web client in a real headless Chromium against a running system, as a person uses it:
uploads with live progress, a streamed answer with citations, stars, deletions, errors."""

import asyncio
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import UPLOAD_LIMIT, WebUser, screenshot
from tests.fixtures import documents
from tests.fixtures.transcripts import interview_transcript
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.e2e

TRANSCRIPT = "expert-interview.md"
# what the page showed, recorded as it changed: stages per file, the badge, streamed answers
RECORDER = """() => {
  window.seen = {stages: {}, badge: [], streamed: []};
  const push = (list, value) =>
    JSON.stringify(list.at(-1)) !== JSON.stringify(value) && list.push(value);
  new MutationObserver(() => {
    for (const row of document.querySelectorAll("#file-list .file-row[data-file-id]")) {
      const name = row.querySelector(".file-name").textContent;
      const percent = Number(row.querySelector("[role=progressbar]").getAttribute("aria-valuenow"));
      push(window.seen.stages[name] ??= [], [percent, row.querySelector(".stage").textContent]);
    }
    const badge = document.getElementById("files-badge");
    const busy = document.getElementById("files-button").classList.contains("busy");
    push(window.seen.badge, [badge.hidden ? "" : badge.textContent, busy]);
    const streaming = document.querySelector(".turn.streaming .answer");
    if (streaming) push(window.seen.streamed, streaming.textContent);
  }).observe(document.getElementById("app"), {childList: true, subtree: true, characterData: true,
    attributes: true});
}"""


def text_file(name: str, text: str) -> dict[str, Any]:
    return {"name": name, "mimeType": "text/plain", "buffer": text.encode()}


async def open_app(page: Page, system: Stack, user: WebUser) -> None:
    await page.goto(system.gateway_url)
    await page.fill("#key-input", user.key)
    await page.keyboard.press("Enter")
    await expect(page.locator("#app")).to_be_visible()


async def drop_file(page: Page, selector: str, name: str, text: str) -> None:
    """Drag a file from outside the browser onto `selector`, as a person would."""
    transfer = await page.evaluate_handle(
        """([name, text]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], name, {type: "text/plain"}));
            return transfer;
        }""",
        [name, text],
    )
    for event in ("dragenter", "dragover", "drop"):
        await page.dispatch_event(selector, event, {"dataTransfer": transfer})


def file_row(page: Page, name: str) -> Locator:
    return page.locator("#file-list .file-row[data-file-id]", has_text=name)


async def test_upload_watch_progress_ask_and_open_a_citation(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await page.goto(web_system.gateway_url)
    await expect(page.locator("#key-screen")).to_be_visible()
    await page.fill("#key-input", web_user.key)
    await page.get_by_role("button", name="Open Artisan").click()
    await expect(page.locator("#empty-state")).to_be_visible()
    await expect(page.locator("#files-badge")).to_be_hidden()
    await screenshot(page, "empty")
    await page.evaluate(RECORDER)

    # two files through the paperclip's file picker, one dragged onto the input bar
    async with page.expect_file_chooser() as chooser:
        await page.get_by_role("button", name="Upload and attach files").click()
    await (await chooser.value).set_files(
        [
            text_file(TRANSCRIPT, interview_transcript()),
            text_file("pricing.md", documents.markdown()),
        ]
    )
    await drop_file(page, "#message", "q2-revenue.txt", documents.QUARTERLY_FACTS)
    await page.locator("#files-button").click()
    await expect(file_row(page, TRANSCRIPT)).to_be_visible()
    await screenshot(page, "processing")

    for name in (TRANSCRIPT, "pricing.md", "q2-revenue.txt"):
        await expect(file_row(page, name)).to_have_attribute("data-status", "ready", timeout=60_000)
        await expect(file_row(page, name).locator(".stage")).to_have_text("Ready")
    seen = await page.evaluate("window.seen")
    for name, stages in seen["stages"].items():
        percents = [percent for percent, _ in stages]
        assert percents == sorted(percents), (name, stages)  # real progress never goes back
        assert stages[-1] == [100, "Ready"] and len(stages) >= 2, (name, stages)
    assert any(stage.startswith("Compressing chunks") for _, stage in seen["stages"][TRANSCRIPT])
    assert any(busy for _, busy in seen["badge"]), seen["badge"]  # processing count first
    await expect(page.locator("#files-badge")).to_have_text("3")  # then the ready count
    await expect(page.locator("#files-button")).not_to_have_class("busy")
    await page.keyboard.press("Escape")
    await expect(page.locator("#files-dropdown")).to_be_hidden()

    # the three uploads are attachments of the next message, which is sent with Enter
    await expect(page.locator("#attachments .chip")).to_have_count(3)
    await page.locator("#message").fill("What did our largest customers keep asking for?")
    await page.keyboard.press("Enter")
    turn = page.locator(".turn[data-turn-id]:not([data-turn-id=''])")
    await expect(turn).to_have_count(1, timeout=30_000)
    await expect(page.locator("#attachments")).to_be_hidden()
    await expect(turn.locator(".turn-attachments .chip")).to_have_count(3)
    seen = await page.evaluate("window.seen")
    assert any(text.strip() for text in seen["streamed"]), "no token was shown before the end"
    await expect(turn.locator(".answer")).to_contain_text("predictable bills")
    await screenshot(page, "answer")

    turn_id = await turn.get_attribute("data-turn-id")
    stored = (await web_user.client.get(f"/v1/turns/{turn_id}")).json()
    citation = stored["citations"][0]
    await turn.locator(f'.answer .cite[data-ref="{citation["ref"]}"]').first.click()
    dialog = page.locator("#citation-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("mark")).to_have_text(citation["snippet"])
    chunks = (await web_user.client.get(f"/v1/files/{citation['file_id']}/chunks")).json()
    [chunk] = [c for c in chunks["items"] if c["id"] == citation["chunk_id"]]
    assert await dialog.locator("pre.passage").text_content() == chunk["text"]
    await expect(dialog.locator("h2")).to_contain_text(citation["filename"])
    await screenshot(page, "citation")
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()

    await turn.get_by_role("button", name="Star this turn (always remembered)").click()
    await expect(turn.locator(".star")).to_have_attribute("aria-pressed", "true")
    assert (await web_user.client.get(f"/v1/turns/{turn_id}")).json()["is_starred"] is True
    await page.reload()  # the key is remembered; history and the star come back
    await expect(page.locator(f'.turn[data-turn-id="{turn_id}"] .star')).to_have_attribute(
        "aria-pressed", "true"
    )

    # a file in detail: its summary and chunks
    await page.locator("#files-button").click()
    await file_row(page, TRANSCRIPT).locator(".file-name").click()
    details = page.locator("#file-dialog")
    await expect(details.locator(".chunk")).to_have_count(24)
    await expect(details.locator(".summary")).not_to_be_empty()
    await screenshot(page, "file-detail")
    await page.keyboard.press("Escape")

    # deleting a file removes it from the list and from the server
    gone = file_row(page, "q2-revenue.txt")
    file_id = await gone.get_attribute("data-file-id")
    await gone.get_by_role("button", name="Delete q2-revenue.txt").click()
    await expect(gone).to_have_count(0)
    assert (await web_user.client.get(f"/v1/files/{file_id}")).status_code == 404
    await expect(page.locator("#files-badge")).to_have_text("2")

    # and deleting the turn removes it from the conversation and from the server
    await page.keyboard.press("Escape")
    kept = page.locator(f'.turn[data-turn-id="{turn_id}"]')
    await kept.get_by_role("button", name="Delete this turn").click()
    await expect(kept).to_have_count(0)
    await expect(page.locator("#empty-state")).to_be_visible()
    assert (await web_user.client.get(f"/v1/turns/{turn_id}")).status_code == 404


async def test_an_oversized_file_shows_the_413_message(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.locator("#file-input").set_input_files(
        text_file("big.txt", "x" * (UPLOAD_LIMIT + 1))
    )
    alert = page.locator("#notices .notice.error")
    await expect(alert).to_contain_text("'big.txt' is larger than the")
    await expect(alert).to_contain_text("split it into smaller files")
    await expect(page.locator("#attachments")).to_be_hidden()
    assert (await web_user.client.get("/v1/files")).json()["items"] == []


async def test_a_failed_file_shows_its_reason_and_can_be_retried(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    binary = {"name": "photo.txt", "mimeType": "text/plain", "buffer": bytes(range(256)) * 8}
    await page.locator("#file-input").set_input_files(binary)
    await page.locator("#files-button").click()
    row = file_row(page, "photo.txt")
    await expect(row).to_have_attribute("data-status", "failed", timeout=30_000)
    [failed] = (await web_user.client.get("/v1/files")).json()["items"]
    await expect(row.locator(".error-text")).to_have_text(failed["error_message"])
    await expect(row.locator(".ring-label")).to_have_text("!")

    await row.get_by_role("button", name="Retry photo.txt").click()
    for _ in range(300):  # the retry is a new attempt, which fails again for the same reason
        again = (await web_user.client.get(f"/v1/files/{failed['id']}")).json()
        if again["status"] == "failed" and again["updated_at"] != failed["updated_at"]:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"the retry did not run: {again}")
    await expect(row).to_have_attribute("data-status", "failed")
    await expect(row.locator(".error-text")).to_have_text(again["error_message"])


async def test_a_wrong_key_is_refused_with_a_message(page: Page, web_system: Stack) -> None:
    await page.goto(web_system.gateway_url)
    await page.fill("#key-input", "ak_not-a-key")
    await page.keyboard.press("Enter")
    await expect(page.locator("#key-error")).to_contain_text("That key was refused")
    await expect(page.locator("#app")).to_be_hidden()


async def test_instructions_and_facts_are_listed_per_persona_and_can_be_forgotten(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await page.get_by_role("radio", name="Gunnar").click()
    await expect(page.locator("#message")).to_have_attribute("placeholder", "Message Gunnar…")
    await page.locator("#message").fill("From now on, never use sports analogies.")
    await page.keyboard.press("Enter")
    await expect(page.locator(".turn[data-turn-id]:not([data-turn-id=''])")).to_have_count(1)

    await page.get_by_role("button", name="Memory", exact=True).click()
    panel = page.locator("#memory-panel")

    async def instructions_of(persona: str) -> Locator:
        await page.get_by_role("radio", name=persona).click()
        section = panel.locator(".memory-section", has_text=f"{persona}'s instructions")
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
    await page.locator("#message").fill("I am the head of finance at Acme.")
    await page.keyboard.press("Enter")
    known = panel.locator(".memory-section", has_text="What Artisan knows")
    for _ in range(100):
        await page.get_by_role("button", name="Memory", exact=True).click()  # closed
        await page.get_by_role("button", name="Memory", exact=True).click()  # opened again: re-read
        if await known.locator("li").count():
            break
        await asyncio.sleep(0.2)
    await expect(known.locator("li")).to_contain_text("head of finance at Acme")
    await known.get_by_role("button", name="Forget this fact").click()
    await expect(known.locator("li")).to_have_count(0)
    assert (await web_user.client.get("/v1/memory")).json()["items"] == []


async def test_usable_at_375_pixels(page: Page, web_system: Stack, web_user: WebUser) -> None:
    await page.set_viewport_size({"width": 375, "height": 812})
    await open_app(page, web_system, web_user)
    for control in ("Upload and attach files", "Send", "Files", "Memory"):
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
    await expect(answer).to_contain_text(f"Bluebird {payload} and it ships")
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
    await expect(page.get_by_role("button", name="Send")).to_be_focused()
    await page.keyboard.press("Tab")
    await expect(page.locator("#files-button")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#files-dropdown")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.locator("#files-dropdown")).to_be_hidden()
    await expect(page.locator("#files-button")).to_be_focused()


async def test_progress_reconnects_after_a_gateway_restart(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    await expect(page.locator("body[data-stream=open]")).to_have_count(1)
    web_system.supervisor.kill("gateway")
    try:
        await expect(page.locator("#connection")).to_be_visible(timeout=15_000)
    finally:
        web_system.supervisor.start("gateway")  # the other tests need it back in any case
    await expect(page.locator("#connection")).to_be_hidden(timeout=30_000)

    # a file uploaded elsewhere (the CLI, another tab) shows up live on the reconnected stream
    record = await upload(web_user.client, "later.md", documents.markdown())
    await wait_for_status(web_user.client, record["id"], "ready")
    await page.locator("#files-button").click()
    await expect(file_row(page, "later.md")).to_have_attribute("data-status", "ready")
