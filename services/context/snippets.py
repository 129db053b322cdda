"""Snippets: the part of a stored text that a citation quotes, always an exact substring of it,
starting and ending at word boundaries."""

import re

SNIPPET_CHARS = 240
# a "word" longer than this (a URL, a hash, a run of symbols) may be cut rather than the
# snippet shifted or shortened by that much
MAX_WORD_SHIFT = 40
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


def query_words(query: str) -> list[str]:
    """The query's words of three letters or more, lower-cased."""
    return [w.lower() for w in _WORD.findall(query)]


def snippet_for(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """At most `size` characters of `text` around the first query word it contains (an exact
    substring), from the start of a word to the end of one."""
    start, end = snippet_span(text, query, size)
    return text[start:end]


def snippet_span(text: str, query: str, size: int = SNIPPET_CHARS) -> tuple[int, int]:
    """[start, end) of the snippet in `text`."""
    lowered = text.lower()
    positions = [lowered.find(w) for w in query_words(query)]
    found = [p for p in positions if p >= 0]
    centre = min(found) if found else 0
    start = word_start(text, max(0, min(centre - size // 4, len(text) - size)))
    return start, word_end(text, start, min(len(text), start + size))


def word_start(text: str, start: int) -> int:
    """`start` moved back to the start of the word it falls in (or past whitespace to the next
    word); a word longer than MAX_WORD_SHIFT is cut instead."""
    while start < len(text) and text[start].isspace():
        start += 1
    back = start
    while back > 0 and not text[back - 1].isspace() and start - back < MAX_WORD_SHIFT:
        back -= 1
    return back if back == 0 or text[back - 1].isspace() else start


def word_end(text: str, start: int, end: int) -> int:
    """`end` moved back to the end of the last whole word before it (whitespace trimmed); a
    word longer than MAX_WORD_SHIFT is cut instead."""
    if end < len(text) and not text[end].isspace():
        space = end - 1
        while space > start and not text[space].isspace() and end - space < MAX_WORD_SHIFT:
            space -= 1
        if space > start and text[space].isspace():
            end = space
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
