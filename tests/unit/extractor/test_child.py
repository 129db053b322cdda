"""Extraction in a child process: past its time or memory limit one file fails, clearly and for
good, and the extractor goes on serving the others."""

import asyncio
import multiprocessing
import os
import signal
import time

import pytest

from services.extractor.child import ExtractionCrashed, extract_in_child, run_in_child
from services.extractor.errors import ExtractionError, LimitExceeded
from shared.config import ExtractionSettings
from shared.errors import PermanentError
from tests.benchmarks.hostile_inputs import MB, pdf_slow_pages, zip_bomb_docx
from tests.fixtures import documents

LIMITS = ExtractionSettings()


# targets run in the child, so they live at module level where it can import them
def spin_forever() -> str:
    while True:
        pass


def allocate(megabytes: int) -> str:
    return str(len(bytearray(megabytes * MB)))


def die() -> str:
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"


def raise_a_bug() -> str:
    raise KeyError("a parser bug")


async def test_a_file_is_extracted_in_a_child_and_its_refusal_comes_back_as_it_was() -> None:
    text = await extract_in_child(documents.pdf(), "board.pdf", LIMITS)
    assert "expand into Germany first" in text
    with pytest.raises(ExtractionError, match="the file is empty"):
        await extract_in_child(b"", "empty.txt", LIMITS)
    assert issubclass(ExtractionError, PermanentError), "a refusal fails the file at once"


def test_a_child_past_the_time_limit_is_killed_and_the_file_fails_for_good() -> None:
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as refused:
        run_in_child(spin_forever, (), timeout_seconds=0.5, memory_mb=1024)
    assert time.monotonic() - started < 5
    assert str(refused.value) == (
        "extracting the text took longer than 0.5 s, the limit for one file "
        "(ARTISAN_EXTRACT_TIMEOUT_SECONDS); split the file into smaller ones, or save its text "
        "as .txt, and upload again"
    )
    assert multiprocessing.active_children() == [], "the child was killed and reaped"


def test_a_child_past_the_memory_limit_fails_the_file_for_good() -> None:
    assert run_in_child(allocate, (64,), timeout_seconds=10, memory_mb=512) == str(64 * MB)
    with pytest.raises(LimitExceeded, match=r"more than 256 MB of memory.*EXTRACT_MEMORY_MB"):
        run_in_child(allocate, (512,), timeout_seconds=10, memory_mb=256)


def test_a_child_that_dies_or_hits_a_bug_is_retried_not_blamed_on_the_file() -> None:
    with pytest.raises(ExtractionCrashed, match="killed by SIGKILL") as died:
        run_in_child(die, (), timeout_seconds=10, memory_mb=1024)
    assert not isinstance(died.value, PermanentError)
    with pytest.raises(ExtractionCrashed, match="KeyError: 'a parser bug'"):
        run_in_child(raise_a_bug, (), timeout_seconds=10, memory_mb=1024)


async def test_a_stuck_file_does_not_hold_up_another() -> None:
    stuck = asyncio.create_task(
        asyncio.to_thread(run_in_child, spin_forever, (), timeout_seconds=3, memory_mb=1024)
    )
    for _ in range(500):  # until the stuck child runs
        if multiprocessing.active_children():
            break
        await asyncio.sleep(0.01)
    assert multiprocessing.active_children(), "the stuck child never started"
    started = time.monotonic()
    text = await extract_in_child(b"the other user's notes", "notes.txt", LIMITS)
    assert text == "the other user's notes\n"
    assert time.monotonic() - started < 2
    assert not stuck.done(), "both files were being read at once"
    with pytest.raises(LimitExceeded, match="longer than 3 s"):
        await stuck


async def test_a_pdf_whose_pages_are_slow_to_read_ends_at_the_time_limit() -> None:
    slow = pdf_slow_pages(MB)  # 1,000 pages that each draw the same 1 MB of text: minutes
    with pytest.raises(LimitExceeded, match="took longer than 1 s"):
        limits = LIMITS.model_copy(update={"extract_timeout_seconds": 1})
        await extract_in_child(slow, "slow.pdf", limits)


async def test_a_docx_within_the_zip_limits_that_needs_more_memory_ends_at_the_limit() -> None:
    large = zip_bomb_docx(0, unpacked=150 * MB)  # under the 200 MB a .docx may unpack to
    limits = LIMITS.model_copy(update={"extract_memory_mb": 256})
    with pytest.raises(LimitExceeded, match="more than 256 MB of memory"):
        await extract_in_child(large, "large.docx", limits)
