"""Browser fixtures: a system of its own and Debian's Chromium driven by Playwright.

Chromium is not downloaded: the tests use the system's (`apt-get install chromium`, which
`.ci/run` does) or the one named by ARTISAN_CHROMIUM. Without one the browser tests are skipped
on a developer's machine and fail in CI, where a skip would hide a broken client.
"""

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, async_playwright

from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.helpers import client_for_new_user, own_stack

# as root, with no network beyond the machine: no sandbox, no background connections
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
UPLOAD_LIMIT = 300_000  # small, so the 413 path needs only a small file
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def chromium_path() -> str | None:
    return os.environ.get("ARTISAN_CHROMIUM") or shutil.which("chromium")


@pytest.fixture(scope="session")
def web_system(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Stack]:
    env = {**TEST_ENV, "ARTISAN_MAX_UPLOAD_BYTES": str(UPLOAD_LIMIT)}
    with own_stack(tmp_path_factory.mktemp("web"), env=env, pgdata=pgdata_template) as stack:
        yield stack


def installed_or_skip(path: str | None, message: str) -> str:
    """A browser's path; without one, skip on a developer's machine and fail in CI."""
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    path = installed_or_skip(
        chromium_path(),
        "browser tests need Chromium: apt-get install chromium (or set ARTISAN_CHROMIUM)",
    )
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield launched
        await launched.close()


class WebUser:
    """A new user of the system: their API client and key."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.key = client.headers["Authorization"].removeprefix("Bearer ")


@pytest.fixture
async def web_user(web_system: Stack) -> AsyncIterator[WebUser]:
    client = await client_for_new_user(web_system, "browser")
    yield WebUser(client)
    await client.aclose()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh browser profile (nothing stored) that accepts confirm() prompts; a script error
    on the page fails the test."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    opened = await context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("dialog", lambda dialog: dialog.accept())
    yield opened
    await context.close()
    assert not errors, f"errors on the page: {errors}"


async def screenshot(page: Page, name: str) -> None:
    """Save what the page shows now, for the documentation site."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / f"{name}.png")
