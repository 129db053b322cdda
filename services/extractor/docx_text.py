"""Word (.docx) to text: headings as '#' lines, paragraphs and table rows in document order.
A .docx is a zip, so its declared sizes are checked before anything is inflated."""

import io
import re
from dataclasses import dataclass

from docx import Document
from docx.document import Document as WordDocument
from docx.enum.style import WD_STYLE_TYPE
from docx.table import Table
from docx.text.paragraph import Paragraph

from services.extractor.ooxml import WORD, check_package, unreadable

_HEADING_STYLE = re.compile(r"^heading\s+(\d)$", re.IGNORECASE)


def docx_to_text(data: bytes) -> str:
    """Paragraphs separated by blank lines, list items and table rows by single newlines."""
    check_package(data, WORD)
    try:
        document = Document(io.BytesIO(data))
        blocks = list(document.iter_inner_content())
        styles = _StyleNames.of(document)
    except MemoryError:  # the memory limit, not damage: the caller words it
        raise
    except Exception as error:  # a zip, XML or package error all mean the same to the user
        raise unreadable(data, WORD, error) from None
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
