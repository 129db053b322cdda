"""Files in the web client, errors and formats: the picker offers what the server accepts, a file
that fails is told once and counted on the badge, notices get out of the way, and spreadsheets,
CSV files and slide decks go to ready."""

import time

import pytest
from playwright.async_api import Locator, Page, Route, expect

from shared.formats import SUPPORTED_EXTENSIONS, media_type_for
from shared.launcher.stack import Stack
from tests.e2e.conftest import UPLOAD_LIMIT, WebUser, screenshot
from tests.e2e.web import file_row, open_app, text_file
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.e2e
ERROR_SECONDS, INFO_SECONDS = 8, 4


async def test_the_picker_offers_exactly_what_the_server_accepts(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    picker = page.locator("#file-input")
    await expect(picker).to_have_attribute("accept", ",".join(SUPPORTED_EXTENSIONS))
    served = (await web_user.client.get("/v1/formats")).json()
    assert [item["extension"] for item in served["items"]] == list(SUPPORTED_EXTENSIONS)
    assert served["max_upload_bytes"] == UPLOAD_LIMIT
    assert {".xlsx", ".pptx", ".csv"} <= set(SUPPORTED_EXTENSIONS)

    # a type the picker would not offer, dropped or picked anyway, is refused before it is sent
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    await picker.set_input_files(text_file("keynote.key", "slides"))
    notice = page.locator("#notices .notice.error p")
    await expect(notice).to_have_text(
        "Artisan can't read .key files like 'keynote.key'. Save it as one of "
        f"{', '.join(SUPPORTED_EXTENSIONS)} and upload that."
    )
    assert posts == [] and (await web_user.client.get("/v1/files")).json()["items"] == []


async def test_a_failed_file_is_told_once_and_shown_on_the_badge(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    ready = await upload(web_user.client, "notes.md", documents.markdown() + "\nfailed test\n")
    await wait_for_status(web_user.client, ready["id"], "ready")
    await open_app(page, web_system, web_user)
    await expect(page.locator("#files-badge")).to_have_text("1")
    fake = {"name": "forecast.xlsx", "mimeType": "text/plain", "buffer": b"not a workbook " * 40}
    await page.locator("#file-input").set_input_files(fake)

    notice = page.locator("#notices .notice.error")
    await expect(notice).to_have_count(1, timeout=30_000)
    [failed] = [f for f in (await web_user.client.get("/v1/files")).json()["items"]
                if f["filename"] == "forecast.xlsx"]  # fmt: skip
    assert failed["status"] == "failed"
    told = await notice.locator("p").inner_text()
    assert told == f"Artisan couldn't read 'forecast.xlsx': {failed['error_message']}."
    assert told.count("forecast.xlsx") == 1 and "ARTISAN_" not in told
    assert "is not an Excel workbook" in told and "upload that" in told  # what to do
    failed_badge = page.locator("#files-failed")
    await expect(failed_badge).to_have_text("1")
    await expect(page.locator("#files-badge")).to_have_text("1")  # the ready one
    await expect(page.locator("#files-button")).to_have_attribute(
        "aria-label", "Files: 1 ready, 1 failed"
    )
    await expect_below_the_persona_bar(page, notice)
    await screenshot(page, "failed-file")

    # it fades by itself; after a reload the failure is on the badge, not told again
    await expect(notice).to_have_count(0, timeout=(ERROR_SECONDS + 2) * 1000)
    await page.reload()
    await expect(failed_badge).to_have_text("1")
    await page.wait_for_timeout(1000)
    await expect(page.locator("#notices .notice")).to_have_count(0)


async def test_notices_fade_by_themselves_and_name_no_setting(
    page: Page, web_system: Stack, web_user: WebUser
) -> None:
    await open_app(page, web_system, web_user)
    notice = page.locator("#notices .notice")

    # the server's refusal, as an operator reads it, is told in the user's words
    async def no_rules(route: Route) -> None:
        await route.fulfill(status=503, body="{}")

    await page.route("**/v1/formats", no_rules)
    await page.reload()
    await expect(page.locator("#app")).to_be_visible()
    await page.locator("#file-input").set_input_files(
        text_file("big.txt", "x" * (UPLOAD_LIMIT + 1))
    )
    await expect(notice).to_have_count(1)
    shown = time.monotonic()
    told = await notice.locator("p").inner_text()
    assert told.startswith("'big.txt' is larger than the") and told.count("big.txt") == 1
    assert "ARTISAN_" not in told and "split it into smaller files" in told
    await expect_below_the_persona_bar(page, notice)
    await expect(notice).to_have_count(0, timeout=(ERROR_SECONDS + 2) * 1000)
    assert ERROR_SECONDS - 1 <= time.monotonic() - shown <= ERROR_SECONDS + 2

    # an error can be dismissed at once; hovering holds a notice while it is read
    await page.locator("#file-input").set_input_files(
        text_file("big.txt", "x" * (UPLOAD_LIMIT + 1))
    )
    await notice.get_by_role("button", name="Dismiss").click()
    await expect(notice).to_have_count(0)

    # news, not a problem: shorter still
    await upload(web_user.client, "memo.md", documents.markdown())
    await page.locator("#file-input").set_input_files(text_file("copy.md", documents.markdown()))
    await expect(notice).to_contain_text("is already uploaded")
    shown = time.monotonic()
    await notice.hover()
    await page.wait_for_timeout((INFO_SECONDS + 1) * 1000)
    await expect(notice).to_have_count(1)
    await page.mouse.move(5, 895)
    await expect(notice).to_have_count(0, timeout=(INFO_SECONDS + 2) * 1000)
    assert time.monotonic() - shown >= 2 * INFO_SECONDS


@pytest.mark.parametrize("name", ["revenue.xlsx", "regions.csv", "roadmap.pptx"])
async def test_spreadsheets_csv_and_decks_go_to_ready_with_their_structure(
    page: Page, web_system: Stack, web_user: WebUser, name: str
) -> None:
    await open_app(page, web_system, web_user)
    data = documents.every_format()[name]
    await page.locator("#file-input").set_input_files(
        {"name": name, "mimeType": media_type_for(name), "buffer": data}
    )
    await page.locator("#files-button").click()
    row = file_row(page, name)
    await expect(row).to_have_attribute("data-status", "ready", timeout=60_000)
    record = await wait_for_status(
        web_user.client, await row.get_attribute("data-file-id"), "ready"
    )
    text = (await web_user.client.get(f"/v1/files/{record['id']}/content")).text
    expected = {
        "revenue.xlsx": "## Sheet: Revenue",
        "regions.csv": "Region: EMEA | Q1 2024: 4.2M | Q2 2024: 4.9M | Growth: 16.7%",
        "roadmap.pptx": "## Slide 2: Why Germany first",
    }
    assert expected[name] in text
    await row.locator(".file-name").click()
    await expect(page.locator("#file-dialog .chunk").first).to_contain_text(text.split("\n")[0])
    await expect(page.locator("#notices .notice.error")).to_have_count(0)


async def expect_below_the_persona_bar(page: Page, notice: Locator) -> None:
    bar = await page.locator(".topbar").bounding_box()
    box = await notice.bounding_box()
    assert bar is not None and box is not None
    assert box["y"] >= bar["y"] + bar["height"], (box, bar)
