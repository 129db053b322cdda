"""Word (.docx) to text: headings as '#' lines, paragraphs and table rows in document order."""

import io
import re

from docx import Document
from docx.table import Table
from docx.text.paragraph import Paragraph

from services.extractor.errors import ExtractionError

_HEADING_STYLE = re.compile(r"^heading\s+(\d)$", re.IGNORECASE)


def docx_to_text(data: bytes) -> str:
    """Paragraphs separated by blank lines, list items and table rows by single newlines."""
    try:
        document = Document(io.BytesIO(data))
        blocks = list(document.iter_inner_content())
    except Exception as error:  # a zip, XML or package error all mean the same to the user
        raise ExtractionError(
            f"could not read the Word document ({error}); only .docx (Word 2007 or later) "
            "is supported: save .doc files as .docx and upload again"
        ) from None
    # (text, group): consecutive lines of one list or table join with a single newline
    lines: list[tuple[str, str | None]] = []
    for number, block in enumerate(blocks):
        if isinstance(block, Paragraph):
            rendered = _paragraph_line(block)
            if rendered:
                lines.append(rendered)
        elif isinstance(block, Table):
            lines.extend((row, f"table-{number}") for row in _table_rows(block))
    return _join(lines)


def _paragraph_line(paragraph: Paragraph) -> tuple[str, str | None] | None:
    text = " ".join(paragraph.text.split())
    if not text:
        return None
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
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
