"""The reference pages are what the code produces now: a route, a setting or a command changed
without refreshing docs/reference/ fails here, and says the command that refreshes it."""

import subprocess
import sys
from pathlib import Path

from tests.docs.reference import REFRESH_COMMAND

ROOT = Path(__file__).resolve().parents[2]


def test_reference_pages_match_the_code() -> None:
    # a process of its own: the pages are made with no ARTISAN_* variable (this test run sets
    # some) and without this process's cached settings
    result = subprocess.run(
        [sys.executable, "-m", "tests.docs.reference", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, (
        f"docs/reference/ is out of date: run `{REFRESH_COMMAND}` and commit the pages\n"
        + result.stderr[-3000:]
    )
