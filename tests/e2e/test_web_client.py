"""The web client in a real headless Chromium against a running system, as a person uses it:
uploads with live progress, a streamed answer with citations, stars, deletions, errors."""

import asyncio

import pytest
from playwright.async_api import Page, Route, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import UPLOAD_LIMIT, WebUser, screenshot
from tests.e2e.web import RECORDER, TRANSCRIPT, drop_file, file_row, open_app, text_file
from tests.fixtures import documents
from tests.fixtures.transcripts import interview_transcript
from tests.helpers import upload

pytestmark = pytest.mark.e2e


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
    await upload_three_files_and_watch_them_finish(page)
    turn_id = await ask_and_open_a_citation(page, web_user)
    await star_and_reload(page, web_user, turn_id)
    await open_a_file_and_delete_one(page, web_user)
    await delete_the_turn(page, web_user, turn_id)


async def upload_three_files_and_watch_them_finish(page: Page) -> None:
    """Two files through the paperclip's file picker, one dragged onto the input bar."""
    async with page.expect_file_chooser() as chooser:
        await page.get_by_role("button", name="Upload files").click()
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


async def ask_and_open_a_citation(page: Page, web_user: WebUser) -> str:
    """The answer streams, cites, and its citation opens on the exact passage; the turn's id."""
    # uploading never narrows a question: no file is chosen, so answers may use every file
    await expect(page.locator("#attachments")).to_be_hidden()
    await page.locator("#message").fill("What did our largest customers keep asking for?")
    await page.keyboard.press("Enter")
    turn = page.locator(".turn[data-turn-id]:not([data-turn-id=''])")
    await expect(turn).to_have_count(1, timeout=30_000)
    await expect(turn.locator(".turn-attachments")).to_have_count(0)
    seen = await page.evaluate("window.seen")
    assert any(text.strip() for text in seen["streamed"]), "no token was shown before the end"
    await expect(turn.locator(".answer")).to_contain_text("predictable bills")
    await screenshot(page, "answer")

    turn_id = await turn.get_attribute("data-turn-id")
    assert turn_id is not None
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
    return turn_id


async def star_and_reload(page: Page, web_user: WebUser, turn_id: str) -> None:
    turn = page.locator(f'.turn[data-turn-id="{turn_id}"]')
    await turn.get_by_role("button", name="Star this turn (always remembered)").click()
    await expect(turn.locator(".star")).to_have_attribute("aria-pressed", "true")
    assert (await web_user.client.get(f"/v1/turns/{turn_id}")).json()["is_starred"] is True
    await page.reload()  # the key is remembered; history and the star come back
    await expect(page.locator(f'.turn[data-turn-id="{turn_id}"] .star')).to_have_attribute(
        "aria-pressed", "true"
    )


async def open_a_file_and_delete_one(page: Page, web_user: WebUser) -> None:
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


async def delete_the_turn(page: Page, web_user: WebUser, turn_id: str) -> None:
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


async def test_an_upload_over_the_rate_limit_waits_and_is_sent_again(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    """A folder dropped at once can meet the upload budget: the 429's Retry-After is honoured."""
    await open_app(page, web_system, web_user)
    refused: list[str] = []

    async def refuse_the_first(route: Route) -> None:
        if route.request.method == "POST" and not refused:
            refused.append(route.request.url)
            await route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body='{"detail": "Too many uploads. Try again in 1 s."}',
            )
        else:
            await route.continue_()

    await page.route("**/v1/files", refuse_the_first)
    await page.locator("#file-input").set_input_files(text_file("later.md", documents.markdown()))
    await page.locator("#files-button").click()
    await expect(file_row(page, "later.md")).to_have_attribute(
        "data-status", "ready", timeout=60_000
    )
    assert len(refused) == 1
    await expect(page.locator("#notices .notice.error")).to_have_count(0)


async def test_answers_use_only_the_files_you_tick_and_say_so(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    """NotebookLM-style sources: uploading scopes nothing; ticking files does, visibly, until
    cleared; a failed file cannot be ticked."""
    board = "board-notes.md", "# Board notes\n\nOur gross margin is 74% this quarter.\n"
    interview = "interview.md", "# Interview\n\nThe customer wants predictable bills.\n"
    for name, text in (board, interview):
        await upload(web_user.client, name, text)
    broken = await upload(web_user.client, "broken.txt", bytes(range(256)) * 8)
    await open_app(page, web_system, web_user)
    await page.locator("#files-button").click()
    for name in (board[0], interview[0]):
        await expect(file_row(page, name)).to_have_attribute("data-status", "ready", timeout=60_000)
    await expect(file_row(page, "broken.txt")).to_have_attribute(
        "data-status", "failed", timeout=60_000
    )
    await expect(file_row(page, "broken.txt").locator(".source-box")).to_be_disabled()

    # with nothing ticked, a question about the board notes is answered from them
    await ask(page, "What is our gross margin?")
    first = page.locator(".turn[data-turn-id]:not([data-turn-id=''])").last
    await expect(first.locator(".answer")).to_contain_text("74%")
    await expect(first.locator(".turn-attachments")).to_have_count(0)

    # ticking the interview scopes the next questions to it, and the bar says so
    if await page.locator("#files-dropdown").is_hidden():
        await page.locator("#files-button").click()
    await file_row(page, interview[0]).get_by_role("checkbox").check()
    await page.keyboard.press("Escape")
    await expect(page.locator("#attachments")).to_contain_text("Answers use only:")
    await expect(page.locator("#attachments .chip")).to_have_text([interview[0]])
    await ask(page, "What is our gross margin?")
    scoped = page.locator(".turn[data-turn-id]:not([data-turn-id=''])").nth(1)
    await expect(scoped.locator(".turn-attachments")).to_contain_text("Answered only from")
    await expect(scoped.locator(".turn-attachments .chip")).to_have_text([interview[0]])
    await expect(scoped.locator(".answer")).not_to_contain_text("74%")
    turn_id = await scoped.get_attribute("data-turn-id")
    stored = (await web_user.client.get(f"/v1/turns/{turn_id}")).json()
    interview_id = file_row(page, interview[0])
    assert stored["attachments"] == [await interview_id.get_attribute("data-file-id")]

    # the choice survives a reload and is cleared with one click
    await page.reload()
    await expect(page.locator("#attachments .chip")).to_have_text([interview[0]])
    await page.get_by_role("button", name="Use all files").click()
    await expect(page.locator("#attachments")).to_be_hidden()
    response = await web_user.client.post(
        "/v1/chat", json={"persona": "gunnar", "message": "hi", "attachments": [broken["id"]]}
    )
    assert response.status_code == 422 and "cannot be a source" in response.json()["detail"]


async def ask(page: Page, question: str) -> None:
    answered = page.locator(".turn[data-turn-id]:not([data-turn-id=''])")
    before = await answered.count()
    await page.locator("#message").fill(question)
    await page.keyboard.press("Enter")
    await expect(answered).to_have_count(before + 1, timeout=30_000)
