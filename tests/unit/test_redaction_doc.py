"""docs/redaction.md's sample table says what redaction does today: each sample's "after" cell is
what redact() returns for it."""

import re
from pathlib import Path

import pytest

from shared.secrets import redact

DOC = Path(__file__).resolve().parents[2] / "docs" / "redaction.md"
ROW = re.compile(r"^\| [^|]+ \| `(?P<sample>[^`]+)` \| `[^`]+` \| `(?P<after>[^`]+)` \|$")


def unescaped(cell: str) -> str:
    return cell.replace("\\n", "\n")


def sample_rows() -> list[tuple[str, str]]:
    rows = [ROW.match(line) for line in DOC.read_text().splitlines()]
    return [(unescaped(r["sample"]), unescaped(r["after"])) for r in rows if r]


def test_the_doc_has_its_sample_table() -> None:
    assert len(sample_rows()) >= 20


@pytest.mark.parametrize(("sample", "after"), sample_rows())
def test_each_sample_is_redacted_as_the_doc_says(sample: str, after: str) -> None:
    assert redact(sample).text == after
