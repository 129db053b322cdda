"""What the web client tests share: opening the app, dropping and picking files, a recorder of
what the page showed as it changed."""

from typing import Any

from playwright.async_api import Locator, Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser

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
