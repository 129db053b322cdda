"""How each kind of context item reads in the prompt, and what its citation points at."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from services.context.snippets import query_words, snippet_for
from shared.text.citations import without_ref_markers

Row = Mapping[str, Any]
RECALLED_FULL_CHARS = 1200  # a recalled turn this short enters whole (~300 tokens)
RECALLED_SNIPPET_CHARS = 600


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else ""


def turn_text(turn: Row) -> str:
    """A full turn (P1, P2): when, which persona, what the user said and what it answered
    (without its old citation markers)."""
    return (
        f"[{_when(turn['created_at'])} · {turn['persona_name']}]\n"
        f"User: {without_ref_markers(turn['user_message'])}\n"
        f"{turn['persona_name']}: {without_ref_markers(turn['ai_response'])}"
    )


def cut_text(entry: Row) -> str:
    """An Artisan Cut (P4, P5): boss essence, persona essence, arc, persona and date (without
    the old citation markers an essence drawn from an answer carries)."""
    return (
        f"[{_when(entry['created_at'])} · {entry['persona_name']}]"
        f" Arc: {without_ref_markers(entry['decision_arc_summary'])}\n"
        f"Boss: {without_ref_markers(entry['boss_essence'])}\n"
        f"{entry['persona_name']}: {without_ref_markers(entry['persona_essence'])}"
    )


def recalled_text(entry: Row, query: str) -> str:
    """A recalled turn (P5): when, which persona, and its own words — in full when short, else
    its cut and the passage of its words that holds the question's terms."""
    said = _said(entry)
    if len(said) <= RECALLED_FULL_CHARS:
        return f"[{_when(entry['created_at'])} · {entry['persona_name']}]\n{said}"
    return f"{cut_text(entry)}\nSaid: {snippet_for(said, query, RECALLED_SNIPPET_CHARS)}"


def recalled_citation(entry: Row, query: str) -> dict:
    """A recalled turn quotes its own words: the side of it (message or answer) that holds
    more of the question's words."""
    words = query_words(query)
    sides = [without_ref_markers(entry[side]) for side in ("ai_response", "user_message")]
    quoted = max((side for side in sides if side), key=lambda side: _hits(side, words), default="")
    return {
        "turn_id": entry["turn_id"],
        "title": entry["decision_arc_summary"],
        "snippet": snippet_for(quoted, query),
    }


def _hits(text: str, words: list[str]) -> int:
    lowered = text.lower()
    return sum(word in lowered for word in words)


def _said(entry: Row) -> str:
    return (
        f"User: {without_ref_markers(entry['user_message'])}\n"
        f"{entry['persona_name']}: {without_ref_markers(entry['ai_response'])}"
    )


def instruction_text(entry: Row) -> str:
    """An instruction (P3) in the user's words: the directive alone where the cut kept it."""
    scope = entry["instruction_scope"]
    who = "all personas" if scope == "global" else scope
    given = _when(entry["created_at"])
    said = entry.get("instruction") or entry["boss_essence"]
    return f"Instruction for {who} (given {given}): {without_ref_markers(said)}"


def fact_text(fact: Row) -> str:
    return f"About the {'user' if fact['kind'] == 'user' else 'company'}: {fact['fact']}"


def fact_citation(fact: Row) -> dict:
    """A memory fact cites itself: what Artisan knows about the user or their company."""
    title = "About you" if fact["kind"] == "user" else "About your company"
    return {"fact_id": fact["id"], "title": title, "snippet": fact["fact"]}


def journal_citation(entry: Row, query: str) -> dict:
    """A journal source: the turn, titled by its decision arc, quoting its stored essence (the
    boss's or the persona's, whichever holds a word of the question)."""
    words = query_words(query)
    essences = [e for e in (entry["boss_essence"], entry["persona_essence"]) if e]
    quoted = next((e for e in essences if any(w in e.lower() for w in words)), essences[0])
    return {
        "turn_id": entry["turn_id"],
        "title": entry["decision_arc_summary"],
        "snippet": snippet_for(quoted, query),
    }


def starred_citation(turn: Row, cut: Row | None, query: str) -> dict:
    """A starred turn cites its cut when it has one, else the user's own words."""
    if cut is not None:
        return journal_citation(cut, query)
    return {
        "turn_id": turn["id"],
        "title": turn["user_message"][:80],
        "snippet": snippet_for(turn["user_message"], query),
    }


def chunk_text(chunk: Row) -> str:
    """Strategic chunks enter as their Artisan Cut, factual ones as their raw text."""
    heading = f"{chunk['filename']} — {chunk['title']}" if chunk["title"] else chunk["filename"]
    if chunk["chunk_type"] == "strategic" and chunk["chunk_essence"]:
        arc = chunk["decision_arc_summary"] or ""
        return f"{heading}\nArc: {arc}\n{chunk['chunk_essence']}"
    return f"{heading}\n{chunk['text']}"


def chunk_citation(chunk: Row, query: str, title: str | None = None) -> dict:
    """A file passage: file, chunk, section title, character and line ranges, exact snippet."""
    return {
        "file_id": chunk["file_id"],
        "filename": chunk["filename"],
        "chunk_id": chunk["chunk_id"],
        "title": title if title is not None else chunk["title"],
        "char_start": chunk["char_start"],
        "char_end": chunk["char_end"],
        "line_start": chunk["line_start"],
        "line_end": chunk["line_end"],
        "snippet": snippet_for(chunk["text"], query),
    }


def attachment_text(file: Row) -> str:
    """Seed 004: an attachment is referenced, never inlined."""
    return f"[Attached: {file['filename']} ({file['media_type']})]"
