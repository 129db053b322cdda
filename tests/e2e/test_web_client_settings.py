"""The model status and Settings in headless Chromium, on a system of their own (a saved model
changes the whole instance): offline is said plainly, a member is sent to the admin, and the
admin tests a connection to a local OpenAI-compatible server, saves it, and gets written answers
without restarting anything."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from playwright.async_api import Page, expect

from shared.db import users
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.e2e.conftest import WebUser, screenshot
from tests.e2e.web import open_app
from tests.fakes.llm_responder import realistic_responder, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, own_stack, upload, wait_for_status
from tests.integration.test_chat import PRICING_MEMO

pytestmark = pytest.mark.e2e
KEY = "sk-proj-BrowserSettings5fQ2mL9xW4vB8nK3p"
WRITTEN = (
    "Written by the connected model: we moved to usage tiers because our largest customers kept"
    " asking for predictable bills. [Ref: 1]"
)


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    responder = scripted_responder({"chat_1a": lambda values: WRITTEN}, realistic_responder)
    with FakeModelServer(responder) as server:
        yield server


@pytest.fixture(scope="module")
def settings_web_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path
) -> Iterator[Stack]:
    with own_stack(
        tmp_path_factory.mktemp("web-settings"), env=TEST_ENV, pgdata=pgdata_template
    ) as stack:
        yield stack


async def new_user(stack: Stack, name: str, *, admin: bool) -> WebUser:
    client = await client_for_new_user(stack, name)
    if admin:
        conn = await asyncpg.connect(stack.database_url)
        try:
            await users.set_admin(conn, name=name)
        finally:
            await conn.close()
    return WebUser(client)


@pytest.fixture
async def member(settings_web_system: Stack) -> AsyncIterator[WebUser]:
    user = await new_user(settings_web_system, "member", admin=False)
    yield user
    await user.client.aclose()


@pytest.fixture
async def admin(settings_web_system: Stack) -> AsyncIterator[WebUser]:
    user = await new_user(settings_web_system, "admin", admin=True)
    yield user
    await user.client.aclose()


async def test_offline_is_said_plainly_and_a_member_is_sent_to_the_admin(
    page: Page, settings_web_system: Stack, member: WebUser
) -> None:
    await open_app(page, settings_web_system, member)
    status = page.get_by_role("button", name="Models: Offline — answers quote your files")
    await expect(status).to_contain_text("Offline — answers quote your files")
    note = page.locator("#empty-model")
    await expect(note).to_contain_text("quotes your files and what you told Artisan word for word")
    await screenshot(page, "model-offline")

    await note.get_by_role("button", name="How to get written answers").click()
    dialog = page.get_by_role("dialog", name="Models")
    await expect(dialog).to_contain_text("ask the admin of this Artisan")
    await expect(dialog.locator("#settings-form")).to_be_hidden()
    await page.keyboard.press("Escape")


async def test_the_admin_connects_a_model_and_the_next_answer_is_written_by_it(
    page: Page, settings_web_system: Stack, admin: WebUser, model_server: FakeModelServer
) -> None:
    record = await upload(admin.client, "pricing.md", PRICING_MEMO)
    await wait_for_status(admin.client, record["id"], "ready")
    await open_app(page, settings_web_system, admin)
    await page.get_by_role("button", name="Connect a model").click()
    dialog = page.get_by_role("dialog", name="Models")
    await expect(dialog).to_contain_text("connect a language model in Settings")

    await dialog.get_by_label("Base URL").first.fill(model_server.base_url)
    await dialog.get_by_label("Model", exact=True).first.fill("fake-writer")
    await dialog.get_by_label("API key").first.fill(KEY)
    await dialog.get_by_role("button", name="Test connection").click()
    result = dialog.get_by_role("status")
    # the test makes one real call to each side and may take its whole budget (about 12 s)
    await expect(result).to_contain_text(
        "Language model: Connected: fake-writer answered in", timeout=15_000
    )
    await expect(result).to_contain_text("Embeddings: Offline embeddings: nothing to test.")
    await screenshot(page, "settings")

    await dialog.get_by_role("button", name="Save").click()
    await expect(result).to_contain_text("Saved. fake-writer writes the answers.", timeout=15_000)
    key_field = dialog.get_by_label("API key").first
    await expect(key_field).to_have_value("")
    await expect(key_field).to_have_attribute("placeholder", "saved")
    await expect(dialog.locator(".model-headline")).to_have_text("fake-writer writes the answers")
    assert KEY not in await page.content()
    await page.keyboard.press("Escape")

    await expect(page.locator("#model-status")).to_contain_text("fake-writer")
    await page.locator("#message").fill("Why did we move from per-seat pricing to usage tiers?")
    await page.keyboard.press("Enter")
    answer = page.locator(".turn[data-turn-id]:not([data-turn-id='']) .answer")
    await expect(answer).to_contain_text("Written by the connected model", timeout=30_000)
    assert any(r.headers["authorization"] == f"Bearer {KEY}" for r in model_server.chat_requests)
    settings = await admin.client.get("/v1/settings/models")
    assert settings.json()["llm_key_set"] and KEY not in settings.text


async def test_going_offline_again_from_settings(
    page: Page, settings_web_system: Stack, admin: WebUser
) -> None:
    await open_app(page, settings_web_system, admin)
    await page.locator("#model-status").click()
    dialog = page.get_by_role("dialog", name="Models")
    await dialog.get_by_role("button", name="Disconnect: answer offline").click()
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog.get_by_role("status")).to_contain_text("Saved. Offline")
    await expect(page.locator("#model-status")).to_contain_text("Offline")
    status = (await admin.client.get("/v1/settings/models/status")).json()
    assert status["offline"]
    assert not (await admin.client.get("/v1/settings/models")).json()["llm_key_set"]


async def test_the_admin_switches_the_weather_tool_and_every_user_sees_it(
    page: Page, settings_web_system: Stack, admin: WebUser, member: WebUser
) -> None:
    await open_app(page, settings_web_system, admin)
    await page.locator("#model-status").click()
    switch = page.get_by_role("switch", name="Weather statistics tool (Open-Meteo)")
    await expect(switch).not_to_be_checked()
    await expect(page.locator("#weather-tool-hint")).to_contain_text("nothing of yours is sent")
    await switch.check()
    await page.get_by_role("button", name="Save").click()
    weather = page.locator("#model-now .weather-status")
    await expect(weather).to_have_text(
        "Weather statistics tool (Open-Meteo): on — answers may fetch public weather archives."
    )
    assert (await member.client.get("/v1/settings/models/status")).json()["weather_tool"] is True

    await switch.uncheck()
    await page.get_by_role("button", name="Save").click()
    await expect(weather).to_have_text("Weather statistics tool (Open-Meteo): off.")
    assert (await member.client.get("/v1/settings/models/status")).json()["weather_tool"] is False
