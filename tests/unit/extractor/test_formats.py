"""Extraction: every format to normalised text, and clear reasons for what can't be read."""

import io
from collections.abc import Callable

import pytest
from docx import Document
from docx.document import Document as WordDocument

from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text
from shared.formats import SUPPORTED_EXTENSIONS, extension_of, media_type_for
from tests.fixtures import documents


def _docx_bytes(build: Callable[[WordDocument], None]) -> bytes:
    document = Document()
    build(document)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_supported_extensions_and_media_types() -> None:
    assert set(SUPPORTED_EXTENSIONS) == {
        ".txt", ".md", ".rst", ".log", ".vtt", ".html", ".htm", ".pdf", ".docx", ".csv", ".xlsx",
        ".pptx",
    }  # fmt: skip
    assert media_type_for("notes.MD") == "text/markdown"
    assert media_type_for("call.vtt") == "text/vtt"
    assert media_type_for("report.pdf") == "application/pdf"
    assert media_type_for("a.docx").endswith("wordprocessingml.document")
    assert media_type_for("a.xlsx").endswith("spreadsheetml.sheet")
    assert media_type_for("a.pptx").endswith("presentationml.presentation")
    assert media_type_for("a.csv") == "text/csv"
    assert media_type_for("archive.zip") == "application/octet-stream"


def test_every_supported_format_is_in_the_end_to_end_documents() -> None:
    fixtures = {extension_of(name) for name in documents.every_format()}
    assert fixtures | {".htm"} == set(SUPPORTED_EXTENSIONS)  # .htm is read as .html


@pytest.mark.parametrize("filename", sorted(documents.every_format()))
def test_every_format_gives_clean_text(filename: str) -> None:
    text = extract_text(documents.every_format()[filename], filename)
    assert text.strip()
    assert "\r" not in text and "\x00" not in text
    assert "\n\n\n\n" not in text
    assert text.endswith("\n")


def test_plain_text_line_endings_and_blank_runs_are_normalised() -> None:
    raw = b"first\r\nsecond\rthird\n\n\n\n\n\nfourth\x00\x07 end\n"
    with pytest.raises(ExtractionError, match="binary"):
        extract_text(raw, "notes.txt")  # a NUL byte means binary
    text = extract_text(raw.replace(b"\x00", b""), "notes.txt")
    assert text == "first\nsecond\nthird\n\n\nfourth end\n"


def test_utf8_bom_and_utf16_with_bom_are_accepted() -> None:
    assert extract_text(b"\xef\xbb\xbfhello", "a.md") == "hello\n"
    assert extract_text("héllo wörld\r\n".encode("utf-16"), "a.txt") == "héllo wörld\n"
    big_endian = b"\xfe\xff" + "日本語のテキスト".encode("utf-16-be")
    assert extract_text(big_endian, "a.txt") == "日本語のテキスト\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_read_by_its_nul_bytes(encoding: str) -> None:
    assert extract_text("plain words in UTF-16, café".encode(encoding), "notes.txt") == (
        "plain words in UTF-16, café\n"
    )


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("café", "latin-1"),
        ("Müller, Straße, Größe: über alles.", "latin-1"),
        ("Le café est très bon — la crème brûlée, s’il vous plaît. 5 €.", "cp1252"),
        ("Привет, как дела? Это тестовый текст на русском языке. " * 4, "koi8-r"),
        ("Привет, как дела? Это тестовый текст на русском языке. " * 4, "cp1251"),
        ("これは日本語のテキストです。東京は大きい都市です。", "shift_jis"),
        ("这是一个中文文本的例子，用于测试编码检测。", "gb18030"),
    ],
)
def test_legacy_encodings_are_detected(text: str, encoding: str) -> None:
    assert extract_text(text.encode(encoding), "notes.txt") == text.rstrip() + "\n"


def test_bytes_no_encoding_reads_name_the_first_bad_byte() -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_text(bytes(range(128, 256)) * 64, "menu.txt")
    message = str(caught.value)
    assert "not UTF-8" in message and "0x80" in message and "offset 0" in message
    assert "save it as UTF-8" in message


def test_binary_content_is_rejected() -> None:
    png_like = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    with pytest.raises(ExtractionError, match="binary"):
        extract_text(png_like, "image.txt")
    controls = b"\x01\x02\x03\x04\x05\x06" * 50 + b"some text"
    with pytest.raises(ExtractionError, match="binary"):
        extract_text(controls, "weird.log")


def test_empty_and_whitespace_only_files_have_no_text() -> None:
    with pytest.raises(ExtractionError, match="empty"):
        extract_text(b"", "a.txt")
    with pytest.raises(ExtractionError, match="no text found"):
        extract_text(b"  \n\n\t\n", "a.md")
    with pytest.raises(ExtractionError, match="no text found"):
        extract_text(b"<html><script>x()</script></html>", "a.html")


def test_unsupported_extension_lists_the_supported_ones() -> None:
    with pytest.raises(ExtractionError, match=r"unsupported file type '\.exe'.*\.docx"):
        extract_text(b"MZ", "setup.exe")
    with pytest.raises(ExtractionError, match="without an extension"):
        extract_text(b"hello", "README")


def test_vtt_keeps_cue_text_and_merges_a_speakers_cues() -> None:
    source = (
        "WEBVTT - interview\n\nNOTE recorded on site\nsecond note line\n\n"
        "STYLE\n::cue { color: red }\n\n"
        "1\n00:00:01.000 --> 00:00:03.000 align:start\n<v Boss>Should we raise</v>\n"
        "<v Boss>prices this year?</v>\n\n"
        "2\n00:00:03.500 --> 00:00:05.000\n<v Boss>And by how much?\n\n"
        "3\n00:00:05.000 --> 00:00:09.000\n"
        "<v.loud Ana Ruiz>I recommend <b>10%</b> &amp; no more.\n\n"
        "00:10.000 --> 00:12.000\n<v Boss>Agreed.\n"
    )
    text = extract_text(source.encode(), "call.vtt")
    assert text == (
        "Boss: Should we raise prices this year? And by how much?\n\n"
        "Ana Ruiz: I recommend 10% & no more.\n\n"
        "Boss: Agreed.\n"
    )


def test_vtt_without_voice_tags_uses_name_prefixes_and_pauses() -> None:
    source = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nJane Doe: hello there\n\n"
        "00:00:02.000 --> 00:00:03.000\nJane Doe: how are you\n\n"
        "00:00:10.000 --> 00:00:11.000\nplain caption\n\n"
        "00:00:11.200 --> 00:00:12.000\nplain caption two\n\n"
        "00:00:30.000 --> 00:00:31.000\nafter a long pause\n"
    )
    text = extract_text(source.encode(), "a.vtt")
    assert text.split("\n\n") == [
        "Jane Doe: hello there how are you",
        "plain caption plain caption two",
        "after a long pause\n",
    ]


def test_html_structure_becomes_markdown_like_text() -> None:
    source = """<!doctype html><html><head><title>Ignored</title>
    <style>body { color: red }</style><script>var x = "<p>no</p>";</script></head>
    <body><nav>Home</nav><h1>Market   overview</h1>
    <p>The market grew <b>12%</b> in 2023 to&nbsp;$4.2B &amp; more.</p>
    <h3>Segments</h3><ul><li>SMB</li><li>Mid-market</li></ul>
    <p>line one<br>line two</p>
    <table><tr><th>Region</th><th>Revenue</th></tr><tr><td>EMEA</td><td>4.2M</td></tr></table>
    <pre>code  keeps
  its spacing</pre>
    </body></html>"""
    text = extract_text(source.encode(), "page.htm")
    assert text == (
        "Home\n\n# Market overview\n\nThe market grew 12% in 2023 to $4.2B & more.\n\n"
        "### Segments\n\n- SMB\n- Mid-market\n\nline one\nline two\n\n"
        "Region | Revenue\nEMEA | 4.2M\n\ncode  keeps\n  its spacing\n"
    )


def test_html_honours_its_declared_charset_and_unclosed_head() -> None:
    source = '<html><head><meta charset="iso-8859-1"><title>t</title><body><p>café</p>'
    assert extract_text(source.encode("latin-1"), "a.html") == "café\n"


def test_pdf_text_layer_is_extracted() -> None:
    data = documents.pdf(["Quarterly memo", "We chose to expand into Germany first."])
    text = extract_text(data, "memo.pdf")
    assert "Quarterly memo" in text
    assert "We chose to expand into Germany first." in text


def test_damaged_pdf_fails_with_a_reason() -> None:
    with pytest.raises(ExtractionError, match="could not read the PDF"):
        extract_text(b"%PDF-1.4\nthis is not really a pdf", "broken.pdf")
    with pytest.raises(ExtractionError, match="could not read the PDF"):
        extract_text(b"plain text pretending", "fake.pdf")


def test_pdf_without_text_says_it_may_be_scanned() -> None:
    with pytest.raises(ExtractionError, match="scanned"):
        extract_text(documents.pdf(["   "]), "scan.pdf")


def test_docx_headings_lists_and_tables_in_document_order() -> None:
    def build(document: WordDocument) -> None:
        document.add_heading("Hiring plan", level=0)
        document.add_paragraph("We will hire a head of sales.")
        document.add_heading("Details", level=2)
        document.add_paragraph("first point", style="List Bullet")
        document.add_paragraph("second point", style="List Bullet")
        table = document.add_table(rows=2, cols=2)
        for row, values in zip(table.rows, [("Role", "Start"), ("Sales lead", "Q3")], strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
        document.add_paragraph("Closing remark.")

    text = extract_text(_docx_bytes(build), "plan.docx")
    assert text == (
        "# Hiring plan\n\nWe will hire a head of sales.\n\n## Details\n\n"
        "- first point\n- second point\n\nRole | Start\nSales lead | Q3\n\nClosing remark.\n"
    )


def test_broken_docx_fails_with_a_reason() -> None:
    with pytest.raises(ExtractionError, match=r"not a Word document \(it may be damaged.*\.docx"):
        extract_text(b"PK\x03\x04 not a real zip", "old.docx")
    with pytest.raises(ExtractionError, match=r"could not read the Word document \(.*\); save"):
        extract_text(documents.xlsx(), "renamed.docx")
