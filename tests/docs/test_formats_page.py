"""The files guide's formats table names every extension the gateway accepts, and no other."""

import re

from shared.config import REPO_ROOT
from shared.formats import SUPPORTED_EXTENSIONS

TABLE_ROW = re.compile(r"^\| ((?:`\.\w+` ?)+) \|", re.MULTILINE)


def test_the_formats_table_lists_exactly_what_uploads_accept() -> None:
    page = (REPO_ROOT / "docs" / "files.md").read_text()
    listed = {ext for row in TABLE_ROW.findall(page) for ext in re.findall(r"`(\.\w+)`", row)}
    assert listed == set(SUPPORTED_EXTENSIONS)
