"""Table rows as lines that name their columns — 'Region: EMEA | Revenue: 4.9M' — so a passage
cited from a spreadsheet says what each value is. Shared by CSV, Excel sheets and slide tables."""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from services.extractor.errors import too_much_text

SEPARATOR = " | "
# '4.2M', '-1,200', '(3.5)', '74%', '$12k', '2024', '2024-05-01': values, not column names
_NUMERIC = re.compile(
    r"^[-+(]?[$€£¥]?\s?\d[\d,.\s']*(?:%|[kmb]n?|[kmb]illion)?\)?$"
    r"|^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Cell:
    text: str
    numeric: bool = False  # a number or a date: a row holding one is data, not a header

    @classmethod
    def of_text(cls, text: str) -> "Cell":
        """A cell known only by its text (CSV, a slide's table): numeric if it reads as one."""
        return cls(text, bool(_NUMERIC.match(text.strip())))


@dataclass
class Records:
    """Rows in, text out. The header is the first row of two or more filled cells, none of them
    numeric; rows of one cell before it (a sheet's title, a note) stay plain lines. A table whose
    first such row holds numbers has no header: its columns are named by `column_name`."""

    column_name: Callable[[int], str]
    max_chars: int
    header: dict[int, str] | None = None  # None until decided; {} for a table without one
    _blocks: list[list[str]] = field(default_factory=list)
    _in_table: bool = False
    _chars: int = 0

    def add(self, row: Sequence[Cell]) -> None:
        """A row with all its cells, empty ones included."""
        self.add_filled((column, cell) for column, cell in enumerate(row) if cell.text)

    def add_filled(self, cells: Iterable[tuple[int, Cell]]) -> None:
        """A row given by its filled cells and their columns (a sparse sheet's row)."""
        filled = [(column, _one_line(cell)) for column, cell in cells]
        filled = [(column, cell) for column, cell in filled if cell.text]
        if not filled:
            return
        if self.header is None:
            if len(filled) == 1:
                self._append(filled[0][1].text, in_table=False)
                return
            numeric = any(cell.numeric for _, cell in filled)
            self.header = {} if numeric else {column: cell.text for column, cell in filled}
            if not numeric:
                return
        named = (f"{self.header.get(c) or self.column_name(c)}: {cell.text}" for c, cell in filled)
        self._append(SEPARATOR.join(named), in_table=True)

    def text(self) -> str:
        """Blocks of consecutive rows, separated from plain lines by blank lines."""
        return "\n\n".join("\n".join(block) for block in self._blocks)

    def _append(self, line: str, *, in_table: bool) -> None:
        # counted as the rows come: a sheet's text can be far longer than its file
        self._chars += len(line) + 1
        if self._chars > self.max_chars:
            raise too_much_text(self._chars, self.max_chars, partly_read=True)
        if in_table and self._in_table:
            self._blocks[-1].append(line)
        else:
            self._blocks.append([line])
        self._in_table = in_table


def _one_line(cell: Cell) -> Cell:
    return Cell(" ".join(cell.text.split()), cell.numeric)


def numbered_column(index: int) -> str:
    """'Column 1', 'Column 2', … for a table without a header."""
    return f"Column {index + 1}"
