"""CSV to text: each row one line that names its columns ('Region: EMEA | Revenue: 4.9M'). The
encoding is found as for any text file, the delimiter (comma, semicolon, tab or bar) by csv's
Sniffer."""

import csv
import io

from services.extractor.errors import ExtractionError
from services.extractor.plaintext import decode_text
from services.extractor.records import Cell, Records, numbered_column

_DELIMITERS = ",;\t|"
# the Sniffer's regular expressions take quadratic time in the worst case: 0.5 s on 8 KB
_SNIFF_CHARS = 8192
_SNIFF_LINES = 20


def csv_to_text(data: bytes, max_chars: int) -> str:
    """Rows as lines under the header's names; rows of one value before the header as they are."""
    text = decode_text(data)
    records = Records(numbered_column, max_chars)
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text))
    try:
        for row in reader:
            records.add([Cell.of_text(value) for value in row])
    except csv.Error as error:
        raise ExtractionError(
            f"could not read the CSV file (line {reader.line_num}: {error}); export it again "
            "as CSV (comma-separated, UTF-8) and upload that"
        ) from None
    return records.text()


def _dialect(text: str) -> type[csv.Dialect] | csv.Dialect:
    sample = "\n".join(text[:_SNIFF_CHARS].splitlines()[:_SNIFF_LINES])
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
    except csv.Error:  # one column, or too little to tell: read it as comma-separated
        return csv.excel
