"""Snippets: the part of a stored text that a citation quotes, always an exact substring of it."""

import re

SNIPPET_CHARS = 240
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


def query_words(query: str) -> list[str]:
    """The query's words of three letters or more, lower-cased."""
    return [w.lower() for w in _WORD.findall(query)]


def snippet_for(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """The part of `text` around the first query word it contains (an exact substring)."""
    lowered = text.lower()
    positions = [lowered.find(w) for w in query_words(query)]
    found = [p for p in positions if p >= 0]
    centre = min(found) if found else 0
    start = max(0, min(centre - size // 4, len(text) - size))
    return text[start : start + size]
