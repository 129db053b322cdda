"""Which files the extractor reads itself and which in a child process with limits."""

import pytest

from services.extractor import handlers
from services.extractor.errors import ExtractionError
from shared.config import ExtractionSettings
from tests.fixtures import documents

LIMITS = ExtractionSettings()


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files handed to a child process (which still reads them)."""
    handed: list[str] = []
    real = handlers.extract_in_child

    async def counted(data: bytes, filename: str, limits: ExtractionSettings) -> str:
        handed.append(filename)
        return await real(data, filename, limits)

    monkeypatch.setattr(handlers, "extract_in_child", counted)
    return handed


async def test_small_plain_text_is_read_in_process(children: list[str]) -> None:
    text = await handlers.read_text(b"Notes\r\n\r\nrevenue grew", "notes.md", LIMITS)
    assert text == "Notes\n\nrevenue grew\n"
    assert children == []


async def test_larger_plain_text_and_other_formats_go_to_a_child(children: list[str]) -> None:
    large = b"word " * (handlers.IN_PROCESS_MAX_BYTES // 5 + 1)
    assert (await handlers.read_text(large, "big.txt", LIMITS)).startswith("word word")
    await handlers.read_text(documents.pdf(), "board.pdf", LIMITS)
    await handlers.read_text(b"<p>hello</p>", "page.html", LIMITS)
    assert children == ["big.txt", "board.pdf", "page.html"]


async def test_bad_small_text_is_refused_in_process_as_in_a_child(children: list[str]) -> None:
    with pytest.raises(ExtractionError, match="empty"):
        await handlers.read_text(b"", "empty.txt", LIMITS)
    with pytest.raises(ExtractionError):
        await handlers.read_text(bytes(range(256)) * 4, "binary.log", LIMITS)
    assert children == []
