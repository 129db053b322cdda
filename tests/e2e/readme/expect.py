"""What the README shows a command printing, held against what it printed here."""

import json
import re
from typing import Any

ELISION = "…"
SHOWN_KEY = re.compile(r'"(\w+)":')


def assert_shows(shown: str, actual: str) -> None:
    """Every line the README shows is printed; `…` in a shown line stands for what it left out."""
    for line in (line.strip() for line in shown.splitlines()):
        if line:
            pieces = [re.escape(piece.strip()) for piece in line.split(ELISION)]
            pattern = r".*?".join(piece for piece in pieces if piece)
            assert re.search(pattern, actual), f"the README shows {line!r}; printed:\n{actual}"


def assert_has_shown_keys(shown: str, actual: Any) -> None:
    """Every JSON key the README shows in an answer is in the real one (at any depth)."""
    missing = set(SHOWN_KEY.findall(shown)) - _keys(actual)
    assert not missing, f"the README shows keys {sorted(missing)} that the answer lacks: {actual}"


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in _keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in _keys(item)}
    return set()


def sse_events(text: str) -> list[tuple[str, Any]]:
    """(event, data) of an SSE stream as curl printed it; data parsed as JSON."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in fields:
            events.append((fields.get("event", "message"), json.loads(fields["data"])))
    return events


def done_event(text: str) -> dict[str, Any]:
    [done] = [data for event, data in sse_events(text) if event == "done"]
    return done
