"""Offline tool use: which of the offered tools a question calls for, decided by fixed rules
(a remote model decides the same from the tools' descriptions).

"Summarise this meeting" with an attached file makes a meeting summary of each attached file.
A weather question is answered by the weather tool only when it is offered (switched on) and
the question gives a place the tool can take (numeric coordinates, or one of a few cities) and a
date range (two ISO dates, or a month and year).
"""

import calendar
import json
import re
from dataclasses import dataclass
from datetime import date

from shared.providers.base import ToolBox
from shared.text.document_requests import asks_for_document

CREATE_DOCUMENT, WEATHER = "create_document", "weather_statistics"
MAX_DOCUMENTS = 3  # attachments summarised in one answer
_WEATHER = re.compile(r"\b(weather|temperatures?|climate)\b", re.IGNORECASE)
_COORDINATES = re.compile(r"(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)")
_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MONTH_YEAR = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december)"
    r"\s+(\d{4})\b",
    re.IGNORECASE,
)
# a few places by name, so "weather in Berlin in March 2024" works offline (no geocoding call)
PLACES = {
    "amsterdam": (52.37, 4.90),
    "berlin": (52.52, 13.41),
    "london": (51.51, -0.13),
    "madrid": (40.42, -3.70),
    "new york": (40.71, -74.01),
    "paris": (48.85, 2.35),
    "san francisco": (37.77, -122.42),
    "tokyo": (35.68, 139.69),
}


@dataclass(frozen=True)
class PlannedCall:
    name: str
    arguments: str  # JSON, as a model would send it


def planned_calls(question: str, tools: ToolBox) -> list[PlannedCall]:
    offered = {spec["function"]["name"] for spec in tools.specs}
    calls = []
    if CREATE_DOCUMENT in offered and tools.attachments and asks_for_document(question):
        for file_id, filename in tools.attachments[:MAX_DOCUMENTS]:
            arguments = {
                "kind": "meeting_summary",
                "title": f"Meeting summary: {filename}",
                "file_id": str(file_id),
            }
            calls.append(PlannedCall(CREATE_DOCUMENT, json.dumps(arguments)))
    if WEATHER in offered and _WEATHER.search(question) and (asked := weather_request(question)):
        calls.append(PlannedCall(WEATHER, json.dumps(asked)))
    return calls


def weather_request(question: str) -> dict[str, object] | None:
    """The tool's arguments the question gives, or None when it lacks a place or a range."""
    place, where = _place(question)
    span = _date_range(question)
    if where is None or span is None:
        return None
    return {
        "latitude": where[0],
        "longitude": where[1],
        "start_date": span[0],
        "end_date": span[1],
        "place": place,
    }


def _place(question: str) -> tuple[str, tuple[float, float] | None]:
    if found := _COORDINATES.search(question):
        return "", (float(found.group(1)), float(found.group(2)))
    lowered = question.lower()
    for name, where in PLACES.items():
        if re.search(rf"\b{name}\b", lowered):
            return name.title(), where
    return "", None


def _date_range(question: str) -> tuple[str, str] | None:
    days = _ISO.findall(question)
    if len(days) >= 2:
        return days[0], days[1]
    if found := _MONTH_YEAR.search(question):
        month = [m.lower() for m in calendar.month_name].index(found.group(1).lower())
        year = int(found.group(2))
        last = calendar.monthrange(year, month)[1]
        return date(year, month, 1).isoformat(), date(year, month, last).isoformat()
    return None


async def tool_answer(question: str, tools: ToolBox | None) -> str | None:
    """The tools' results as the answer, when the question calls for any (run in order)."""
    if tools is None:
        return None
    results = [
        await tools.call(call.name, call.arguments) for call in planned_calls(question, tools)
    ]
    return "\n\n".join(results) or None
