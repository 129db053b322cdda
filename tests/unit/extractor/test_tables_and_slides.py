"""CSV, Excel and PowerPoint: rows keep their column names and slides their order, so a cited
passage says what it is; junk and bombs with these extensions fail with a reason."""

import datetime
import io
import time
import zipfile

import pytest
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches

from services.extractor.errors import ExtractionError, LimitExceeded
from services.extractor.extract import extract_text
from services.extractor.ooxml import MAX_PARTS
from services.extractor.xlsx_text import MAX_CELLS
from shared.config import ExtractionSettings
from tests.fixtures import documents

LIMITS = ExtractionSettings()


def _xlsx(*sheets: tuple[str, list[list[object]]], formats: dict[str, str] | None = None) -> bytes:
    workbook = Workbook()
    workbook.remove(workbook.active)
    for title, rows in sheets:
        sheet = workbook.create_sheet(title)
        for row in rows:
            sheet.append(row)
        for cell, number_format in (formats or {}).items():
            sheet[cell].number_format = number_format
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def test_a_csv_row_is_one_line_that_names_its_columns() -> None:
    assert extract_text(documents.csv().encode(), "regions.csv") == (
        "Region: EMEA | Q1 2024: 4.2M | Q2 2024: 4.9M | Growth: 16.7%\n"
        "Region: APAC | Q1 2024: 2.1M | Q2 2024: 2.6M | Growth: 23.8%\n"
        "Region: Americas | Q1 2024: 7.8M | Q2 2024: 8.1M | Growth: 3.8%\n"
    )


def test_csv_quoting_delimiters_and_encodings_are_read() -> None:
    semicolons = 'Name;Note;Amount\r\n"Müller, Jan";"said ""yes""\nthen left";1.200,50\r\n\r\n'
    assert extract_text(semicolons.encode("cp1252"), "de.csv") == (
        'Name: Müller, Jan | Note: said "yes" then left | Amount: 1.200,50\n'
    )
    tabs = "Plan\tSeats\nTeam\t\nBusiness\t40\n"
    assert extract_text(tabs.encode("utf-16"), "plans.csv") == (
        "Plan: Team\nPlan: Business | Seats: 40\n"
    )


def test_a_csv_without_a_header_names_columns_by_number_and_keeps_a_title_line() -> None:
    text = "Exported 2025-03-01\n2024-01-01,4.2M,EMEA\n2024-02-01,3.9M,APAC\n"
    assert extract_text(text.encode(), "export.csv") == (
        "Exported 2025-03-01\n\n"
        "Column 1: 2024-01-01 | Column 2: 4.2M | Column 3: EMEA\n"
        "Column 1: 2024-02-01 | Column 2: 3.9M | Column 3: APAC\n"
    )
    assert extract_text(b"name\nAda\nGrace\n", "one-column.csv") == "name\n\nAda\n\nGrace\n"


def test_binary_junk_named_csv_is_refused_as_binary() -> None:
    with pytest.raises(ExtractionError, match="looks like binary data"):
        extract_text(bytes(range(256)) * 8, "data.csv")


def test_a_long_csv_is_refused_while_it_is_read_not_after() -> None:
    limits = LIMITS.model_copy(update={"extract_max_text_chars": 1_000})
    rows = "Customer,Seats\n" + "".join(f"Customer {n},{n}\n" for n in range(10_000))
    with pytest.raises(LimitExceeded, match=r"holds at least 1,0\d\d characters .* 1,000 one"):
        extract_text(rows.encode(), "customers.csv", limits)


def test_each_sheet_is_a_section_with_rows_that_name_their_columns() -> None:
    data = _xlsx(
        (
            "Revenue",
            [
                ["Revenue by region"],
                [],
                ["Region", "Q2", "Margin", "Closed on"],
                ["EMEA", 4900000, 0.745, datetime.datetime(2024, 6, 30)],
                ["APAC", 2.6, None, "open"],
            ],
        ),
        ("Empty", []),
        ("Raw numbers", [[1, 2.5], [3, True]]),
        formats={"C4": "0.0%"},
    )
    assert extract_text(data, "board.xlsx") == (
        "## Sheet: Revenue\n\nRevenue by region\n\n"
        "Region: EMEA | Q2: 4900000 | Margin: 74.5% | Closed on: 2024-06-30\n"
        "Region: APAC | Q2: 2.6 | Closed on: open\n\n"
        "## Sheet: Raw numbers\n\n"
        "Column A: 1 | Column B: 2.5\nColumn A: 3 | Column B: TRUE\n"
    )


def test_formulas_show_the_values_excel_saved() -> None:
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["Item", "Cost"])
    sheet.append(["Total", "=SUM(1,2)"])
    out = io.BytesIO()
    workbook.save(out)  # openpyxl saves no results: the cell has no value to show, not "=SUM"
    assert extract_text(out.getvalue(), "costs.xlsx") == "## Sheet: Sheet\n\nItem: Total\n"


def test_a_sheet_declaring_a_huge_size_is_read_as_it_is() -> None:
    data = _xlsx(("Sparse", [["Plan", "Price"], ["Team", 12]]))
    hostile = _rewrite_part(data, "xl/worksheets/sheet1.xml", b'<dimension ref="A1:B2"/>',
                            b'<dimension ref="A1:XFD1048576"/>')  # fmt: skip
    started = time.monotonic()
    assert extract_text(hostile, "sparse.xlsx") == "## Sheet: Sparse\n\nPlan: Team | Price: 12\n"
    assert time.monotonic() - started < 2


def test_a_workbook_past_the_cell_budget_is_refused() -> None:
    # one value in the last column of each row: every row is 16,384 cells wide
    rows = "".join(f'<row r="{n}"><c r="XFD{n}"><v>1</v></c></row>' for n in range(1, 400))
    data = _xlsx(("Wide", [["x"]]))
    hostile = _rewrite_part(data, "xl/worksheets/sheet1.xml", b"<sheetData>",
                            f"<sheetData>{rows}".encode())  # fmt: skip
    with pytest.raises(LimitExceeded, match=f"more than {MAX_CELLS:,} cells"):
        extract_text(hostile, "wide.xlsx")


@pytest.mark.parametrize(
    ("filename", "name"), [("sheet.xlsx", "an Excel workbook"), ("deck.pptx", "a PowerPoint deck")]
)
def test_junk_with_an_office_extension_is_refused_in_the_users_words(
    filename: str, name: str
) -> None:
    with pytest.raises(
        ExtractionError, match=rf"the file is not {name} \(it may be damaged, or another kind"
    ):
        extract_text(bytes(range(256)) * 8, filename)
    old_office = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1024)
    with pytest.raises(ExtractionError, match=r"an old \.(xls|ppt) or a password-protected"):
        extract_text(old_office, filename)
    a_word_document = documents.docx()
    with pytest.raises(ExtractionError, match=f"could not read the {name.split(' ', 1)[1]}"):
        extract_text(a_word_document, filename)


@pytest.fixture(scope="module")
def zip_bomb() -> bytes:
    """A zip of one part that unpacks to 201 MB, one more than an Office file may."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb,
        bomb.open("[Content_Types].xml", "w", force_zip64=True) as part,
    ):
        for _ in range(201):
            part.write(b" " * 2**20)
    return out.getvalue()


@pytest.mark.parametrize("filename", ["bomb.xlsx", "bomb.pptx"])
def test_office_zip_bombs_and_part_floods_are_refused_before_inflating(
    filename: str, zip_bomb: bytes
) -> None:
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"unpacks to 201 MB, more than the 200 MB"):
        extract_text(zip_bomb, filename)
    assert time.monotonic() - started < 1
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as parts:
        for number in range(MAX_PARTS + 1):
            parts.writestr(f"part{number}.xml", b"")
    with pytest.raises(LimitExceeded, match=f"holds {MAX_PARTS + 1:,} parts"):
        extract_text(many.getvalue(), filename)


def test_each_slide_is_a_section_with_its_text_tables_and_notes_in_order() -> None:
    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Pricing\vdecision"
    first.placeholders[1].text = "Usage tiers from March\nPer-seat plans end"
    first.notes_slide.notes_text_frame.text = "Mention churn risk.\nThen stop."
    deck.slides.add_slide(deck.slide_layouts[6])  # an empty slide keeps its number
    third = deck.slides.add_slide(deck.slide_layouts[6])
    group = third.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(1), Inches(3), Inches(1)).text = "In a group"
    table = third.shapes.add_table(3, 2, Inches(1), Inches(3), Inches(4), Inches(1)).table
    for row, values in enumerate([("Plan", "Price"), ("Team", "$12"), ("Business", "$30")]):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    out = io.BytesIO()
    deck.save(out)
    assert extract_text(out.getvalue(), "pricing.pptx") == (
        "## Slide 1: Pricing decision\n\nUsage tiers from March\nPer-seat plans end\n\n"
        "Notes: Mention churn risk.\nThen stop.\n\n"
        "## Slide 3\n\nIn a group\n\nPlan: Team | Price: $12\nPlan: Business | Price: $30\n"
    )


def test_a_deck_without_any_text_has_nothing_to_remember() -> None:
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    out = io.BytesIO()
    deck.save(out)
    with pytest.raises(ExtractionError, match="no text found"):
        extract_text(out.getvalue(), "pictures.pptx")


def _rewrite_part(package: bytes, name: str, old: bytes, new: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(package))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for part in source.infolist():
            data = source.read(part)
            target.writestr(part, data.replace(old, new) if part.filename == name else data)
    return out.getvalue()
