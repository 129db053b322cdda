"""PowerPoint (.pptx) to text: each slide a section '## Slide N: <title>', then its text boxes,
tables (rows that name their columns) and speaker notes, in the slide's order."""

import io
from collections.abc import Iterable, Iterator
from typing import Protocol

from pptx import Presentation
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape
from pptx.slide import Slide

from services.extractor.errors import ExtractionError
from services.extractor.ooxml import POWERPOINT, check_package, unreadable
from services.extractor.records import Cell, Records, numbered_column

# what the slide master repeats on every slide says nothing about this one
_REPEATED = {PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER}


class _Paragraph(Protocol):
    text: str


def pptx_to_text(data: bytes, max_chars: int) -> str:
    """Slides in presentation order, numbered as PowerPoint numbers them; empty ones left out."""
    check_package(data, POWERPOINT)
    try:
        slides = list(Presentation(io.BytesIO(data)).slides)
        sections = [_slide_text(number, slide, max_chars) for number, slide in enumerate(slides, 1)]
    except (ExtractionError, MemoryError):  # a MemoryError is the memory limit, not damage
        raise
    except Exception as error:  # a zip, XML or package error all mean the same to the user
        raise unreadable(data, POWERPOINT, error) from None
    return "\n\n".join(section for section in sections if section)


def _slide_text(number: int, slide: Slide, max_chars: int) -> str:
    title_shape = slide.shapes.title
    title = _one_line(title_shape.text_frame.text) if title_shape is not None else ""
    title_id = title_shape.shape_id if title_shape is not None else None
    body = (shape for shape in _shapes(slide.shapes) if shape.shape_id != title_id)
    blocks = [text for shape in body if (text := _shape_text(shape, max_chars))]
    notes = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
    if notes is not None and (spoken := _lines(notes.paragraphs)):
        blocks.append(f"Notes: {spoken}")
    if not title and not blocks:
        return ""
    heading = f"## Slide {number}: {title}" if title else f"## Slide {number}"
    return "\n\n".join([heading, *blocks])


def _shapes(shapes: Iterable[BaseShape]) -> Iterator[BaseShape]:
    """Every shape in order, the shapes of a group where the group stands."""
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _shapes(shape.shapes)
        elif not (shape.is_placeholder and shape.placeholder_format.type in _REPEATED):
            yield shape


def _shape_text(shape: BaseShape, max_chars: int) -> str:
    if getattr(shape, "has_table", False):
        records = Records(numbered_column, max_chars)
        for row in shape.table.rows:  # type: ignore[attr-defined]
            records.add([Cell.of_text(cell.text) for cell in row.cells])
        return records.text()
    if getattr(shape, "has_text_frame", False):
        return _lines(shape.text_frame.paragraphs)  # type: ignore[attr-defined]
    return ""


def _lines(paragraphs: Iterable[_Paragraph]) -> str:
    """A text frame's paragraphs, one a line; empty ones left out."""
    return "\n".join(line for p in paragraphs if (line := _one_line(p.text)))


def _one_line(text: str) -> str:
    """A paragraph's soft line breaks (vertical tabs) and runs of spaces as single spaces."""
    return " ".join(text.split())
