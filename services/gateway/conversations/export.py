"""A conversation as Markdown: each turn with its persona, time, question and answer, and the
answer's citations as a numbered source list (its `[Ref: N]` markers renumbered 1…n to match)."""

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from shared.personas import get_persona
from shared.text.citations import REF, cited_refs
from shared.text.words import shorten

Row = Mapping[str, Any]
MAX_SNIPPET_CHARS = 300
MAX_SLUG_CHARS = 60


def export_filename(title: str, created_at: datetime) -> str:
    """An ASCII file name from the title and the day it started: `pricing-call-2026-11-25.md`."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")[:MAX_SLUG_CHARS]
    return f"{slug.strip('-') or 'conversation'}-{created_at.astimezone(UTC):%Y-%m-%d}.md"


def conversation_markdown(conversation: Row, title: str, turns: Sequence[Row]) -> str:
    """The whole conversation, oldest turn first."""
    persona = _display_name(conversation["persona_name"])
    lines = [f"# {title}", "", f"- Persona: {persona}"]
    lines.append(f"- Started: {_when(conversation['created_at'])}")
    if turns:
        lines.append(f"- Last turn: {_when(turns[-1]['created_at'])}")
    lines += [f"- Turns: {len(turns)}", ""]
    for number, turn in enumerate(turns, 1):
        lines += ["---", "", *turn_markdown(number, turn)]
    return "\n".join(lines).rstrip() + "\n"


def turn_markdown(number: int, turn: Row) -> list[str]:
    answer, sources = numbered(turn["ai_response"], _citations(turn))
    star = " · starred" if turn.get("is_starred") else ""
    lines = [f"## {number} · {_when(turn['created_at'])}{star}", ""]
    lines += [f"**You:** {turn['user_message'].strip()}", ""]
    lines += [f"**{_display_name(turn['persona_name'])}:** {answer.strip()}", ""]
    if sources:
        lines += ["Sources:", ""]
        lines += [f"{n}. {source_line(citation)}" for n, citation in enumerate(sources, 1)]
        lines.append("")
    return lines


def numbered(answer: str, citations: Sequence[Row]) -> tuple[str, list[Row]]:
    """The answer with its refs renumbered 1…n in order of first mention (sources it lists but
    does not mention follow), and the sources in that order."""
    by_ref = {int(c["ref"]): c for c in citations if c.get("ref") is not None}
    order = [ref for ref in cited_refs(answer) if ref in by_ref]
    order += sorted(ref for ref in by_ref if ref not in order)
    new_number = {ref: n for n, ref in enumerate(order, 1)}

    def renumber(marker: re.Match[str]) -> str:
        ref = int(marker.group(1))
        return f"[{new_number[ref]}]" if ref in new_number else marker.group()

    return REF.sub(renumber, answer), [by_ref[ref] for ref in order]


def source_line(citation: Row) -> str:
    """`pricing.md — Pricing decision, lines 1–19: “…”`, as the web client lists a source."""
    if citation.get("file_id"):
        where = citation.get("filename") or "a file"
        if citation.get("title"):
            where += f" — {citation['title']}"
        start, end = citation.get("line_start"), citation.get("line_end")
        if start is not None:
            where += f", line {start}" if end in (None, start) else f", lines {start}–{end}"
    elif citation.get("fact_id"):
        where = f"Memory — {citation.get('title') or 'a fact'}"
    else:
        where = f"Past conversation — {citation.get('title') or 'an earlier turn'}"
    snippet = shorten(citation.get("snippet") or "", MAX_SNIPPET_CHARS, "…")
    return f"{where}: “{snippet}”" if snippet else where


def _citations(turn: Row) -> list[Row]:
    value = turn.get("citations") or []
    return json.loads(value) if isinstance(value, str) else list(value)


def _display_name(name: str) -> str:
    persona = get_persona(name)
    return persona.display_name if persona else name


def _when(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
