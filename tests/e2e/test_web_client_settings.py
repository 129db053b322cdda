"""The model status and Settings in headless Chromium, on a system of their own (a saved model
changes the whole instance): offline is said plainly, a member is sent to the admin, and the
admin tests a connection to a local OpenAI-compatible server, saves it, and gets written answers
without restarting anything; the model `artisan up --model` serves is one click, the chip says
which work it does, a save after a failed test is asked about, and a model that does not answer
shows red and a failed answer says so in words."""

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from shared.launcher.embedded import free_port
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
LOCAL = "SmolLM2-135M-Instruct.Q4_1"
UNREACHABLE = re.compile(r"\bunreachable\b")
# window.confirm answering `yes`, keeping what it asked (the page fixture accepts native ones)
ANSWER_CONFIRM = "yes => { window.confirm = (asked) => { window.asked = asked; return yes; }; }"
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
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, model_server: FakeModelServer
) -> Iterator[Stack]:
    # as `artisan up --model` tells the gateway of the model it serves (services_env): here the
    # wire-format server stands in for llama.cpp's
    local_model = {"ARTISAN_MODEL_BASE_URL": model_server.base_url, "ARTISAN_MODEL_ALIAS": LOCAL}
    with own_stack(
        tmp_path_factory.mktemp("web-settings"), env=TEST_ENV | local_model, pgdata=pgdata_template
    ) as stack:
        yield stack


async def new_user(stack: Stack, name: str, *, admin: bool) -> WebUser:
    return WebUser(await client_for_new_user(stack, name, admin=admin))


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


async def test_the_local_model_is_one_click_and_the_chip_says_which_work_it_does(
    page: Page,
    settings_web_system: Stack,
    admin: WebUser,
    member: WebUser,
    model_server: FakeModelServer,
) -> None:
    await open_app(page, settings_web_system, admin)
    await page.locator("#model-status").click()
    dialog = page.get_by_role("dialog", name="Models")
    await dialog.get_by_role("button", name=f"Use {LOCAL} (running here)").click()
    await expect(dialog.get_by_label("Base URL").first).to_have_value(model_server.base_url)
    await expect(dialog.get_by_label("Model", exact=True).first).to_have_value(LOCAL)
    await expect(dialog.get_by_label("The model does")).to_have_value("answers")
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog.get_by_role("status")).to_contain_text(f"Saved. {LOCAL} writes the answers")
    said = f"Answers: {LOCAL} (this machine) · Reading files: offline rules"
    await expect(dialog.locator(".model-roles")).to_have_text(f"{said}.")
    await page.keyboard.press("Escape")
    chip = page.locator("#model-status")
    await expect(chip).to_have_text(f"{said}")
    await expect(chip).not_to_have_class(UNREACHABLE)
    saved = (await admin.client.get("/v1/settings/models")).json()
    assert saved["llm_roles"] == "answers" and not saved["llm_key_set"]
    status = (await member.client.get("/v1/settings/models/status")).json()
    assert [role["by"] for role in status["roles"]] == [f"{LOCAL} (this machine)", "offline rules"]


async def test_a_failed_test_is_asked_about_and_a_model_that_does_not_answer_shows_red(
    page: Page, settings_web_system: Stack, admin: WebUser
) -> None:
    record = await upload(admin.client, "pricing.md", PRICING_MEMO)  # read by the offline rules
    await wait_for_status(admin.client, record["id"], "ready")
    await open_app(page, settings_web_system, admin)
    await page.locator("#model-status").click()
    dialog = page.get_by_role("dialog", name="Models")
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    await dialog.get_by_label("Base URL").first.fill(nowhere)
    await dialog.get_by_role("button", name="Test connection").click()
    result = dialog.get_by_role("status")
    await expect(result.locator(".check.failed")).to_contain_text(
        "connection failed", timeout=15_000
    )

    await page.evaluate(ANSWER_CONFIRM, False)  # the admin says no
    await dialog.get_by_role("button", name="Save").click()
    await expect(result).to_contain_text("Not saved: the models stay as they were.")
    asked = await page.evaluate("window.asked")
    assert asked.startswith("The connection test just failed:") and "connection failed" in asked
    assert (await admin.client.get("/v1/settings/models")).json()["llm_base_url"] != nowhere

    await page.evaluate(ANSWER_CONFIRM, True)  # and then yes: the model may be starting
    await dialog.get_by_role("button", name="Save").click()
    await expect(result).to_contain_text("Saved.", timeout=15_000)
    unreachable = dialog.get_by_role("alert")
    await expect(unreachable).to_contain_text("does not answer: nothing answers at that address")
    await page.keyboard.press("Escape")
    chip = page.locator("#model-status")
    await expect(chip).to_have_class(UNREACHABLE)
    await expect(chip).to_contain_text(f"Not answering: {LOCAL}")

    await page.locator("#message").fill("Why did we move from per-seat pricing to usage tiers?")
    await page.keyboard.press("Enter")
    failed = page.locator(".turn-error .error-text")
    await expect(failed).to_contain_text(
        f"The language model ({LOCAL}) did not answer", timeout=30_000
    )
    for internal in ("Error", "127.0.0.1", "http"):
        await expect(failed).not_to_contain_text(internal)
