"""The web client in Firefox (Debian's ESR, headless, over WebDriver BiDi): history, the live
progress stream, a streamed answer, its conversation listed, and a citation — what differs
between browsers."""

import json

import pytest

from shared.launcher.stack import Stack
from tests.e2e.bidi import firefox_path, launch_firefox
from tests.e2e.conftest import SCREENSHOTS, WebUser, installed_or_skip
from tests.fixtures import documents
from tests.helpers import import_turns, upload, wait_for_status

pytestmark = pytest.mark.e2e

# as a JavaScript string literal
COMPLETED_TURNS = json.dumps(".turn[data-turn-id]:not([data-turn-id=''])")


@pytest.fixture
def firefox() -> str:
    return installed_or_skip(
        firefox_path(),
        "this test needs Firefox: apt-get install firefox-esr (or set ARTISAN_FIREFOX)",
    )


async def test_the_client_works_in_firefox(
    firefox: str, web_system: Stack, web_user: WebUser
) -> None:
    memo = await upload(web_user.client, "pricing.md", documents.markdown())
    await wait_for_status(web_user.client, memo["id"], "ready")
    past = {"persona": "vlad", "user_message": "Hello?", "ai_response": "Hello."}
    await import_turns(web_user.client, [past])

    async with launch_firefox(firefox) as page:
        await page.goto(f"{web_system.gateway_url}/#key={web_user.key}")
        # open at once: Firefox reports it only once bytes arrive (the stream's first retry: field)
        await page.wait_for("document.body.dataset.stream === 'open'", timeout=5)
        assert await page.evaluate("document.querySelectorAll('#personas .persona').length") == 6
        # the history arrives after the stream opens
        await page.wait_for("document.querySelectorAll('.turn').length === 1")
        await page.evaluate("document.getElementById('files-button').click()")
        await page.wait_for("document.querySelector('#file-list [data-status=ready]')")

        await page.evaluate(
            """(() => {
                document.getElementById("message").value = "Why did we move to usage tiers?";
                document.getElementById("input-bar").requestSubmit();
            })()"""
        )
        await page.wait_for(f"document.querySelectorAll({COMPLETED_TURNS}).length === 2")
        answer = await page.evaluate(f"document.querySelectorAll({COMPLETED_TURNS})[1].textContent")
        assert "predictable bills" in answer
        # the question went into the imported conversation, listed beside the chat as current
        current = "document.querySelector('#conversation-list .conversation-row.current')"
        await page.wait_for(f"{current}?.textContent.includes('Vlad · 2 turns')")
        assert "Hello?" in await page.evaluate(f"{current}.textContent")
        # each answer's citations start at 1; the composer emptied once the answer was accepted
        first = await page.evaluate(
            "document.querySelectorAll('.answer')[1].querySelector('.cite').textContent"
        )
        assert first == "1"
        assert await page.evaluate("document.getElementById('message').value") == ""

        await page.evaluate("document.querySelector('.answer .cite').click()")
        snippet = await page.wait_for(
            "document.querySelector('#citation-dialog mark')?.textContent"
        )
        assert snippet in documents.markdown()
        await page.screenshot(SCREENSHOTS / "firefox.png")
