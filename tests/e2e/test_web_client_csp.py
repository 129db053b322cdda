"""The web client works under the gateway's Content-Security-Policy: signing in, opening the
panels and uploading a file report no violation, at / and at /static/index.html alike."""

import pytest
from playwright.async_api import ConsoleMessage, Page, expect

from shared.launcher.stack import Stack
from tests.e2e.conftest import WebUser
from tests.e2e.web import file_row, open_app, text_file

pytestmark = pytest.mark.e2e
# recorded from the first script on, before the app's own
RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", (event) =>
  window.violations.push(`${event.violatedDirective} blocked ${event.blockedURI}`));
"""


async def test_the_client_runs_under_its_policy_without_a_violation(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    console: list[str] = []

    def keep(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            console.append(message.text)

    page.on("console", keep)
    await page.add_init_script(RECORD_VIOLATIONS)
    await open_app(page, web_system, web_user)
    async with page.expect_file_chooser() as chooser:
        await page.get_by_role("button", name="Upload files").click()
    await (await chooser.value).set_files([text_file("policy.md", "# Policy\n\nWe chose A.\n")])
    await page.locator("#files-button").click()
    await expect(file_row(page, "policy.md")).to_have_attribute(
        "data-status", "ready", timeout=60_000
    )
    for panel in ("#documents-button", "#memory-button"):
        await page.locator(panel).click()
    assert await page.evaluate("window.violations") == []

    await page.goto(f"{web_system.gateway_url}/static/index.html")
    await expect(page.locator("#app")).to_be_visible()  # the key is remembered
    assert await page.evaluate("window.violations") == []
    assert console == []

    # the recorder sees what the policy stops: a remote image, as a poisoned answer might hold
    await page.evaluate(
        """document.body.insertAdjacentHTML("beforeend", '<img src="https://attacker.example/x">')"""
    )
    await page.wait_for_function("window.violations.length > 0")
    assert await page.evaluate("window.violations") == [
        "img-src blocked https://attacker.example/x"
    ]
