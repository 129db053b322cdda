"""The reference pages are what the code produces now: a route, a setting or a command changed
without refreshing docs/reference/ fails here, and says the command that refreshes it."""

import json
import subprocess
import sys
from pathlib import Path

from tests.docs.reference import REFERENCE_DIR, REFRESH_COMMAND, api

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


def test_the_api_page_shows_every_endpoint_and_every_schema() -> None:
    schema = json.loads((REFERENCE_DIR / "openapi.json").read_text())
    text = api.render(schema)
    headings = [
        f"### {method.upper()} {path}"
        for path, item in schema["paths"].items()
        for method in item
        if method in api.HTTP_METHODS
    ]
    headings += [f"### {name}" for name in schema["components"]["schemas"]]
    assert not [heading for heading in headings if f"\n{heading}\n" not in text]
