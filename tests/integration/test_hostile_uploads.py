"""Hostile uploads on the running system: each is refused with a reason that says what to do, or
gets through extraction as the text it is, and another user's ordinary file goes through
meanwhile; past the time limit a file fails and the extractor serves the next."""

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.formats import media_type_for
from shared.launcher.stack import Stack
from tests.benchmarks.hostile_inputs import HOSTILE_INPUTS, MB, pdf_slow_pages
from tests.conftest import TEST_ENV, ClientFactory
from tests.fixtures import documents
from tests.helpers import client_for_new_user, own_stack, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

# just under the test system's upload limit (ARTISAN_MAX_UPLOAD_BYTES in TEST_ENV)
SIZE = int(TEST_ENV["ARTISAN_MAX_UPLOAD_BYTES"]) - 64 * 1024
# what each hostile file's failure says; None: it is text, however odd, and gets through
EXPECTED_REASON: dict[str, str | None] = {
    "vtt-voice-tags": "no captions found",
    "vtt-voice-tags-in-one-cue": None,
    "html-unclosed-tags": "no text found",
    "html-angle-brackets": None,
    "html-deep-nesting": "levels deep",
    "html-misnested-formatting": "levels deep",
    "text-one-giant-line": None,
    "text-nested-list": None,
    "docx-zip-bomb": "the Word document unpacks to 1,02",
    "docx-understated-sizes": "the Word document is damaged",
    "pdf-many-pages": "pages, more than the 2,000 one file may have",
}


async def settled(client: httpx.AsyncClient, file_id: str, timeout: float) -> dict[str, Any]:
    """Poll a file until it is ready or failed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = (await client.get(f"/v1/files/{file_id}")).raise_for_status().json()
        if record["status"] in ("ready", "failed"):
            return record
        await asyncio.sleep(0.1)
    raise AssertionError(f"file {file_id} neither ready nor failed after {timeout} s")


async def extracted(client: httpx.AsyncClient, file_id: str, timeout: float) -> float:
    """Seconds until the file is past extraction (progress 20: classifying starts)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        record = (await client.get(f"/v1/files/{file_id}")).raise_for_status().json()
        assert record["status"] != "failed", record
        if record["progress"] >= 20:
            return time.monotonic() - started
        await asyncio.sleep(0.05)
    raise AssertionError(f"file {file_id} not past extraction after {timeout} s")


async def assert_ends_clearly(client: httpx.AsyncClient, name: str, file_id: str) -> None:
    """A refused file fails with its reason; one that is text, however odd, gets past extraction
    and is then deleted: chunking megabytes of it is the later stages' work, not extraction's,
    and would hold up the tests that share this system."""
    expected = EXPECTED_REASON[name]
    if expected is None:
        await extracted(client, file_id, timeout=120)
        assert (await client.delete(f"/v1/files/{file_id}")).status_code == 204
        return
    record = await settled(client, file_id, timeout=120)
    reason = record["error_message"] or ""
    assert record["status"] == "failed" and expected in reason, (name, record["status"], reason)
    # a transient error that ran out of retries would read "TypeName: message"
    assert not re.match(r"[A-Z]\w+: ", reason), f"{name}: an exception, not a reason: {reason!r}"


async def test_hostile_uploads_end_clearly_while_another_user_is_served(
    make_client: ClientFactory,
) -> None:
    attacker, neighbour = await make_client(), await make_client()
    hostile = {n: entry for n, entry in HOSTILE_INPUTS.items() if n in EXPECTED_REASON}
    records = {}
    for name, (filename, make) in hostile.items():
        data = make(SIZE)
        assert MB <= len(data) <= SIZE, (name, len(data))
        records[name] = await upload(attacker, filename, data, media_type_for(filename))
    note = documents.legacy_encoded(documents.markdown() + "\nunique: hostile\n")
    ordinary = await upload(neighbour, "notes.md", note)
    # not UTF-8, so the extractor reads it (a UTF-8 note would skip it): behind every hostile
    # file in the extractor's queue, and still through it quickly
    assert await extracted(neighbour, ordinary["id"], timeout=30) < 30
    await wait_for_status(neighbour, ordinary["id"], "ready", timeout=60)
    for name, record in records.items():
        await assert_ends_clearly(attacker, name, record["id"])


@pytest.fixture(scope="module")
def short_time_limit(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path
) -> Iterator[Stack]:
    """A system of its own whose extractor gives a file 8 s (and reads four at once, the
    default: nothing else here needs more than one worker)."""
    env = {**TEST_ENV, "ARTISAN_EXTRACT_TIMEOUT_SECONDS": "8"}
    with own_stack(
        tmp_path_factory.mktemp("short-time-limit"), env=env, pgdata=pgdata_template
    ) as stack:
        yield stack


async def test_a_file_past_the_time_limit_fails_and_the_extractor_serves_the_next(
    short_time_limit: Stack,
) -> None:
    stack = short_time_limit
    [extractor] = stack.supervisor.running("extractor")
    attacker = await client_for_new_user(stack, "attacker")
    neighbour = await client_for_new_user(stack, "neighbour")
    async with attacker, neighbour:
        slow = await upload(attacker, "slow.pdf", pdf_slow_pages(SIZE), "application/pdf")
        # not UTF-8: read by the extractor (a UTF-8 note would skip it)
        note = documents.legacy_encoded(documents.markdown() + "\nunique: 1\n")
        first = await upload(neighbour, "first.md", note)
        # the slow PDF holds one of the extractor's places until its limit; the others are free:
        # the neighbour's file gets through while the PDF is still being read
        await extracted(neighbour, first["id"], timeout=30)
        assert (await attacker.get(f"/v1/files/{slow['id']}")).json()["status"] == "processing"
        failed = await wait_for_status(attacker, slow["id"], "failed", timeout=30)
        assert failed["error_message"] == (
            "extracting the text took longer than 8 s, the limit for one file "
            "(ARTISAN_EXTRACT_TIMEOUT_SECONDS); split the file into smaller ones, or save its "
            "text as .txt, and upload again"
        )
        note = documents.legacy_encoded(documents.markdown() + "\nunique: 2\n")
        second = await upload(neighbour, "second.md", note)
        await wait_for_status(neighbour, second["id"], "ready", timeout=30)
    assert stack.supervisor.running("extractor") == [extractor], "the same process served on"
