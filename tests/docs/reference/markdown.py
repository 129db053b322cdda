"""Markdown pieces the reference generators share: tables whose cells survive any text."""

import re
from collections.abc import Iterable, Sequence

_CODE_SPAN = re.compile(r"(`+).+?\1")


def prose(text: object) -> str:
    """Text from the code, read as text: outside a code span, `<persona>` is no HTML tag."""
    text, pieces, start = str(text), [], 0
    for match in _CODE_SPAN.finditer(text):
        pieces += [text[start : match.start()].replace("<", "&lt;"), match.group()]
        start = match.end()
    return "".join([*pieces, text[start:].replace("<", "&lt;")])


def cell(text: object) -> str:
    """Text fit for one table cell: a newline would end the row and a bare pipe the cell."""
    return " ".join(prose(text).split()).replace("|", "\\|")


def code(text: object) -> str:
    """Inline code that may itself hold backticks."""
    text = str(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table, one line a row; the rows' cells are escaped here."""
    lines = [_row(header), "|" + " --- |" * len(header)]
    lines.extend(_row([cell(value) for value in row]) for row in rows)
    return lines


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def page(lines: Iterable[str]) -> str:
    """A page's text: its lines, no run of blank lines, one newline at the end."""
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip() + "\n"
