"""The limits extraction checks before and after reading: a zip bomb, too many PDF pages, too
much text. Each refusal says which limit, and what to do."""

import io
import time
import zipfile

import pytest
from docx import Document
from pypdf import PdfReader, PdfWriter

from services.extractor.errors import ExtractionError, LimitExceeded
from services.extractor.extract import extract_text
from services.extractor.ooxml import MAX_PARTS
from shared.config import ExtractionSettings
from tests.benchmarks.hostile_inputs import MB, understated_sizes, zip_bomb_docx
from tests.fixtures import documents

LIMITS = ExtractionSettings()


def _pdf_of(pages: int) -> bytes:
    """A PDF of `pages` copies of a one-page memo, written by pypdf."""
    writer = PdfWriter()
    page = PdfReader(io.BytesIO(documents.pdf())).pages[0]
    for _ in range(pages):
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_zip_bomb_docx_is_refused_before_it_is_inflated() -> None:
    bomb = zip_bomb_docx(0, unpacked=300 * MB)
    assert len(bomb) < MB
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as refused:
        extract_text(bomb, "bomb.docx")
    assert time.monotonic() - started < 1, "refused from the headers, not by inflating"
    assert str(refused.value) == (
        "the Word document unpacks to 300 MB, more than the 200 MB a .docx may unpack to; "
        "save it again from Word (or its text as .txt) and upload that"
    )


def test_a_docx_whose_directory_understates_a_part_is_refused_as_damaged() -> None:
    liar = understated_sizes(0, unpacked=300 * MB)
    assert zipfile.ZipFile(io.BytesIO(liar)).getinfo("word/document.xml").file_size == 1000
    with pytest.raises(ExtractionError, match=r"damaged: its part 'word/document\.xml' says"):
        extract_text(liar, "liar.docx")


def test_a_docx_of_too_many_parts_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as parts:
        for number in range(MAX_PARTS + 1):
            parts.writestr(f"word/part{number}.xml", b"")
    with pytest.raises(LimitExceeded, match=f"holds {MAX_PARTS + 1:,} parts, more than the"):
        extract_text(out.getvalue(), "many.docx")


def test_a_long_docx_is_read_in_time_linear_in_its_paragraphs() -> None:
    document = Document()
    for number in range(5_000):
        document.add_paragraph(f"paragraph {number} of a long report")
    out = io.BytesIO()
    document.save(out)
    started = time.monotonic()
    text = extract_text(out.getvalue(), "long.docx")
    # looking up each paragraph's style through python-docx took 11 s here
    assert time.monotonic() - started < 3
    assert text.count("of a long report") == 5_000


def test_a_pdf_over_the_page_cap_is_refused_and_one_at_the_cap_is_read() -> None:
    limits = LIMITS.model_copy(update={"extract_max_pdf_pages": 3})
    assert extract_text(_pdf_of(3), "memo.pdf", limits).count("expand into Germany") == 3
    with pytest.raises(LimitExceeded) as refused:
        extract_text(_pdf_of(4), "memo.pdf", limits)
    assert str(refused.value) == (
        "the PDF has 4 pages, more than the 3 one file may have "
        "(ARTISAN_EXTRACT_MAX_PDF_PAGES); split it into smaller PDFs and upload those"
    )


def test_the_default_page_cap_is_two_thousand() -> None:
    assert extract_text(_pdf_of(2_000), "memo.pdf").count("DACH") == 2_000
    with pytest.raises(LimitExceeded, match="2,001 pages, more than the 2,000"):
        extract_text(_pdf_of(2_001), "memo.pdf")


def test_text_past_the_cap_is_refused_not_cut() -> None:
    limits = LIMITS.model_copy(update={"extract_max_text_chars": 100})
    assert extract_text(b"word " * 20, "notes.txt", limits) == "word " * 19 + "word\n"
    with pytest.raises(LimitExceeded) as refused:
        extract_text(b"word " * 21, "notes.txt", limits)
    assert str(refused.value) == (
        "the file holds 105 characters of text, more than the 100 one file may hold "
        "(ARTISAN_EXTRACT_MAX_TEXT_CHARS); split it into smaller files and upload those"
    )
