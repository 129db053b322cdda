"""Excel (.xlsx) to text: each sheet a section '## Sheet: <name>', each row one line that names
its columns ('Region: EMEA | Revenue: 4.9M'). openpyxl reads in read-only mode, streaming rows
from the sheet's XML; the values shown are those Excel saved (formulas' results)."""

import datetime
import io
from collections.abc import Iterator

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._read_only import ReadOnlyWorksheet

from services.extractor.errors import ExtractionError, LimitExceeded
from services.extractor.ooxml import EXCEL, check_package, unreadable
from services.extractor.records import Cell, Records

# cells visited, counting the empty ones a row holds before its last value: the text cap alone
# would let a sheet of empty rows 16,384 columns wide run to the time limit
MAX_CELLS = 5_000_000


def xlsx_to_text(data: bytes, max_chars: int) -> str:
    """Every worksheet in workbook order; a sheet with no values is left out."""
    check_package(data, EXCEL)
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except MemoryError:  # the memory limit, not damage: the caller words it
        raise
    except Exception as error:  # a zip, XML or package error all mean the same to the user
        raise unreadable(data, EXCEL, error) from None
    sections: list[str] = []
    used = 0
    cells = _CellBudget()
    try:
        for sheet in workbook.worksheets:
            records = Records(_lettered_column, max_chars - used)
            for row in _rows(sheet, cells):
                records.add_filled(row)
            if text := records.text():
                sections.append(f"## Sheet: {' '.join(sheet.title.split())}\n\n{text}")
                used += len(sections[-1]) + 2
    except (ExtractionError, MemoryError):
        raise
    except Exception as error:  # a damaged sheet inside a sound package
        raise unreadable(data, EXCEL, error) from None
    finally:
        workbook.close()
    return "\n\n".join(sections)


class _CellBudget:
    def __init__(self) -> None:
        self.left = MAX_CELLS

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise LimitExceeded(
                f"the Excel workbook has more than {MAX_CELLS:,} cells (counting empty ones "
                "between values); split it into smaller workbooks, or save the sheets you need "
                "as .csv, and upload those"
            )


def _rows(sheet: ReadOnlyWorksheet, budget: _CellBudget) -> Iterator[list[tuple[int, Cell]]]:
    """Each row's filled cells with their columns."""
    # the declared size can be wrong or hostile (A1:XFD1048576): rows are read as they are
    sheet.reset_dimensions()
    for row in sheet.iter_rows():
        budget.spend(len(row) + 1)
        filled = [(column, cell) for column, cell in enumerate(row) if cell.value is not None]
        yield [(column, _cell(cell.value, cell.number_format)) for column, cell in filled]


def _cell(value: object, number_format: str) -> Cell:
    if isinstance(value, bool):
        return Cell("TRUE" if value else "FALSE", numeric=True)
    if isinstance(value, int | float):
        return Cell(_number(value, number_format), numeric=True)
    if isinstance(value, datetime.datetime):
        at_midnight = value.time() == datetime.time()
        shown = value.date().isoformat() if at_midnight else value.isoformat(" ", "minutes")
        return Cell(shown, numeric=True)
    if isinstance(value, datetime.date | datetime.time):
        return Cell(value.isoformat(), numeric=True)
    return Cell(str(value))


def _number(value: int | float, number_format: str) -> str:
    """As the sheet shows it where that matters for reading: 0.74 formatted as 0% is '74%'."""
    if "%" in number_format:
        return f"{value * 100:.10g}%"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:.15g}" if isinstance(value, float) else str(value)


def _lettered_column(index: int) -> str:
    """'Column A', 'Column B', … for a sheet without a header, as Excel names them."""
    return f"Column {get_column_letter(index + 1)}"
