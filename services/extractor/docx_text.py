"""Word (.docx) to text: headings as '#' lines, paragraphs and table rows in document order.
A .docx is a zip, so its declared sizes are checked before anything is inflated."""

import io
import re
import zipfile
from dataclasses import dataclass

from docx import Document
from docx.document import Document as WordDocument
from docx.enum.style import WD_STYLE_TYPE
from docx.table import Table
from docx.text.paragraph import Paragraph

from services.extractor.errors import ExtractionError, LimitExceeded

_HEADING_STYLE = re.compile(r"^heading\s+(\d)$", re.IGNORECASE)
# Word's text packs 3-4 times smaller, so a 10 MB upload of text unpacks to ~40 MB; a zip bomb
# declares gigabytes. No rule on the packing ratio: a document of empty tables packs 150 times
# smaller (measured), and the total already bounds the work.
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_PARTS = 10_000
_RESAVE = "save it again from Word (or its text as .txt) and upload that"


def docx_to_text(data: bytes) -> str:
    """Paragraphs separated by blank lines, list items and table rows by single newlines."""
    _check_unpacked_size(data)
    try:
        document = Document(io.BytesIO(data))
        blocks = list(document.iter_inner_content())
        styles = _StyleNames.of(document)
    except MemoryError:  # the memory limit, not damage: the caller words it
        raise
    except Exception as error:  # a zip, XML or package error all mean the same to the user
        raise ExtractionError(
            f"could not read the Word document ({error}); only .docx (Word 2007 or later) "
            "is supported: save .doc files as .docx and upload again"
        ) from None
    # (text, group): consecutive lines of one list or table join with a single newline
    lines: list[tuple[str, str | None]] = []
    for number, block in enumerate(blocks):
        if isinstance(block, Paragraph):
            rendered = _paragraph_line(block, styles.name_of(block))
            if rendered:
                lines.append(rendered)
        elif isinstance(block, Table):
            lines.extend((row, f"table-{number}") for row in _table_rows(block))
    return _join(lines)


def _check_unpacked_size(data: bytes) -> None:
    """Refuse a zip bomb before python-docx inflates it. zipfile returns no more of a part than
    its header declares, so the declared sizes bound what python-docx is given; a header that
    understates by less than the checks below notice runs into the memory limit instead."""
    try:
        parts = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception:  # not a zip at all: python-docx below words that for the user
        return
    if len(parts) > MAX_PARTS:
        raise LimitExceeded(
            f"the Word document holds {len(parts):,} parts, more than the {MAX_PARTS:,} a .docx "
            f"may have; {_RESAVE}"
        )
    for part in parts:
        # deflate never stores data in more than a hair over its size, so a part stored larger
        # than it declares hides its real size: zipfile would inflate all of it in one go
        if part.compress_size > part.file_size + part.file_size // 100 + 1024:
            raise ExtractionError(
                f"the Word document is damaged: its part '{part.filename}' says it unpacks to "
                f"{part.file_size:,} bytes but is stored in {part.compress_size:,}; {_RESAVE}"
            )
    unpacked = sum(part.file_size for part in parts)
    if unpacked > MAX_UNPACKED_BYTES:
        raise LimitExceeded(
            f"the Word document unpacks to {unpacked // 2**20:,} MB, more than the "
            f"{MAX_UNPACKED_BYTES // 2**20} MB a .docx may unpack to; {_RESAVE}"
        )


@dataclass(frozen=True)
class _StyleNames:
    """Paragraph style names by style id, read once: python-docx's paragraph.style scans every
    style of the document for each paragraph (40 s for a 40,000-paragraph document)."""

    by_id: dict[str, str]
    default: str

    @classmethod
    def of(cls, document: WordDocument) -> "_StyleNames":
        paragraph = WD_STYLE_TYPE.PARAGRAPH
        names = {s.style_id: s.name or "" for s in document.styles if s.type == paragraph}
        default = document.styles.default(paragraph)
        return cls(names, (default.name or "") if default is not None else "")

    def name_of(self, paragraph: Paragraph) -> str:
        """What paragraph.style.name gives: an unknown or missing id means the default style."""
        style_id = paragraph._p.style
        return self.by_id.get(style_id, self.default) if style_id else self.default


def _paragraph_line(paragraph: Paragraph, style: str) -> tuple[str, str | None] | None:
    text = " ".join(paragraph.text.split())
    if not text:
        return None
    heading = _HEADING_STYLE.match(style)
    if heading:
        return f"{'#' * int(heading.group(1))} {text}", None
    if style.lower() == "title":
        return f"# {text}", None
    if style.lower().startswith("list"):
        return f"- {text}", "list"
    return text, None


def _table_rows(table: Table) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:  # a merged cell repeats across the columns it spans
                continue
            previous = cell._tc
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


def _join(lines: list[tuple[str, str | None]]) -> str:
    parts: list[str] = []
    previous_group: str | None = None
    for text, group in lines:
        if parts:
            parts.append("\n" if group is not None and group == previous_group else "\n\n")
        parts.append(text)
        previous_group = group
    return "".join(parts)
