"""A small UTF-8 note's text is read at upload (it skips the extractor): exactly the text the
extractor would store, and nothing for a file the extractor must judge."""

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text
from services.gateway.files.ingest import read_at_upload
from shared.text.plain import READ_AT_UPLOAD_MAX_BYTES, text_at_upload

# text with what normalising changes: line endings, blank-line runs, controls, BOMs, spaces
_PIECES = st.sampled_from(
    ["\n", "\r\n", "\r", "\n\n\n\n\n", "\t", " ", "\f", "\v", "\x00", "\x07", "\x1b", "\x7f",
     "\ufeff", "é", "中文", "🙂", "word", "Decision: ship it."]
)  # fmt: skip
_TEXTS = st.lists(st.one_of(_PIECES, st.text(max_size=20)), max_size=40).map("".join)


def _extracted(data: bytes, filename: str) -> str | None:
    try:
        return extract_text(data, filename)
    except ExtractionError:
        return None


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, name=st.sampled_from(["a.txt", "b.md", "C.RST", "d.log"]))
def test_text_read_at_upload_is_the_extractors(text: str, name: str) -> None:
    data = text.encode("utf-8", errors="surrogatepass")
    at_upload = read_at_upload(name, data)
    if at_upload is not None:
        assert at_upload == _extracted(data, name)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("notes.md", "Café menu\n".encode("cp1252")),  # another encoding: the extractor guesses it
        ("notes.md", codecs.BOM_UTF16_LE + "notes\n".encode("utf-16-le")),
        ("notes.txt", "notes\n".encode("utf-16-le")),  # UTF-16 told by its NUL bytes
        ("notes.txt", b"\x00\x01\x02binary\x03" * 10),
        ("notes.txt", b"text with a bell \x07\n"),  # a control: the extractor weighs binary-ness
        ("notes.txt", b" \n\n \t\n"),  # no text: the extractor says so
        ("notes.html", b"<p>hello</p>"),
        ("notes.pdf", b"%PDF-1.4"),
        ("notes.txt", b"a" * (READ_AT_UPLOAD_MAX_BYTES + 1)),
    ],
)
def test_files_the_extractor_must_read_are_left_to_it(name: str, data: bytes) -> None:
    assert read_at_upload(name, data) is None


def test_a_small_utf8_note_is_read_at_upload() -> None:
    data = "\ufeff# Plan\r\n\r\nWe chose Postgres.\r\n\n\n\n\nWhy: one engine.  \n".encode()
    assert read_at_upload("plan.md", data) == "# Plan\n\nWe chose Postgres.\n\n\nWhy: one engine.\n"
    assert read_at_upload("plan.md", data) == extract_text(data, "plan.md")


def test_a_note_longer_than_a_file_may_hold_is_left_to_the_extractor() -> None:
    # the extractor refuses it with the setting's name; read at upload, it would pass
    assert text_at_upload("notes.txt", b"twelve chars", max_chars=11) is None
    assert text_at_upload("notes.txt", b"twelve chars", max_chars=13) == "twelve chars\n"
