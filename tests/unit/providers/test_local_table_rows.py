"""Rows of a spreadsheet, as the extractor writes them, chunk as rows: never a speaker's turn,
never cut inside a row."""

from shared.providers.local.boundaries import line_boundaries
from shared.providers.local.chunking import chunk_text
from shared.text.boundaries import BoundaryLevel


def test_a_row_that_names_its_columns_is_no_speaker_turn() -> None:
    rows = "".join(f"Region: R{n} | Revenue: {n}.2M | Quarter: Q{n % 4 + 1}\n" for n in range(9))
    levels = {boundary.level for boundary in line_boundaries(rows)}
    assert BoundaryLevel.SPEAKER not in levels
    transcript = "Jane: we should raise prices | or not.\nBob: agreed.\nJane: fine.\n"
    assert line_boundaries(transcript)[0].level == BoundaryLevel.SPEAKER


def test_a_long_table_is_chunked_at_row_ends() -> None:
    rows = [f"Customer: Customer {n} | Plan: Team | Seats: {n % 40}" for n in range(600)]
    text = "\n".join(rows) + "\n"
    spans = chunk_text(text)
    assert len(spans) > 1
    for span in spans:
        assert span.start == 0 or text[span.start - 1] == "\n"
        assert span.title.startswith("Customer: Customer ")
