"""Citations in text: `[Ref: N]` markers, an answer's claims with the refs each cites, and the
passage of a journal cut that an answer may quote."""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from shared.text.sentences import sentence_spans

Row = Mapping[str, Any]

REF = re.compile(r"\[Ref:\s*(\d+)\]")
# the markers (and the space between them) that follow a sentence: its citations
_TRAILING_REFS = re.compile(rf"(?:\s*+{REF.pattern})*+")
_LIST_MARKER = re.compile(r"^(?:[-*•]|\d{1,3}[.)])\s+")


@dataclass(frozen=True)
class Claim:
    text: str  # as written, citations included
    refs: tuple[int, ...]

    @property
    def statement(self) -> str:
        """The sentence without its citation markers and list marker ("- ", "2. ")."""
        return _LIST_MARKER.sub("", REF.sub("", self.text).strip())


def cited_refs(answer: str) -> list[int]:
    """Every ref the answer cites, in order of first mention."""
    return list(dict.fromkeys(int(n) for n in REF.findall(answer)))


def split_claims(answer: str) -> list[Claim]:
    """The answer's sentences (a line ends one too) with the refs each cites; whitespace
    between them is dropped.

    The splitter sees each marker as blank space, so a sentence ends at its full stop whether
    a marker follows with a space or without ("$49.[Ref: 1] Two"); the markers after a sentence
    are its citations, and markers before the first sentence belong to that one.
    """
    blanked = REF.sub(lambda marker: " " * len(marker.group()), answer)
    spans = sentence_spans(blanked, line_breaks=True) or [(0, 0)]  # (0, 0): markers only
    claims = []
    for index, (start, end) in enumerate(spans):
        cited_end = _TRAILING_REFS.match(answer, end).end()
        text = answer[0 if index == 0 else start : cited_end].strip()
        if text:
            claims.append(Claim(text, tuple(int(n) for n in REF.findall(text))))
    return claims


# a past answer's citation markers point at that answer's sources, not at this context's refs
_REF_MARKER = re.compile(r"\s*\[Ref:\s*\d+\]", re.IGNORECASE)


def without_ref_markers(text: str) -> str:
    """The text without its `[Ref: N]` markers (and the space before each)."""
    return _REF_MARKER.sub("", text)


def cut_passage(entry: Row) -> str:
    """What a cut says, as an answer may quote it: the boss's and the persona's essences, a
    blank line apart (no sentence runs from one into the other), without the header that
    cut_text puts before them or old ref markers."""
    essences = (entry["boss_essence"], entry["persona_essence"])
    return "\n\n".join(without_ref_markers(e).strip() for e in essences if e and e.strip())


def drop_claims(answer: str, keeps: Callable[[Claim], bool]) -> tuple[str, list[str]]:
    """The answer without the cited claims `keeps` rejects (paragraph and line breaks kept, so
    a list stays a list), and the statements of those claims. Uncited sentences (framing, a
    refusal) always stay."""
    kept_paragraphs, removed = [], []
    for paragraph in re.split(r"\n\s*\n", answer):
        kept, cursor, last_end = "", 0, 0
        for claim in split_claims(paragraph):
            start = paragraph.find(claim.text, cursor)
            start = cursor if start < 0 else start
            cursor = start + len(claim.text)
            if not claim.refs or keeps(claim):
                between = paragraph[last_end:start] if kept else ""
                kept += ("\n" if "\n" in between else " " if kept else "") + claim.text
                last_end = cursor
            else:
                removed.append(claim.statement)
        if kept:
            kept_paragraphs.append(kept)
    return "\n\n".join(kept_paragraphs), removed


# --- numbering: each answer's citations are 1…n in order of first mention ----------------------


def first_mention_numbers(answer: str, refs: Iterable[int]) -> dict[int, int]:
    """Old → new number for each ref that has a source: 1…n in order of first mention in the
    answer (context refs are global ranks, so an answer's first source could be [Ref: 57]);
    sources the answer never mentions follow, in their order."""
    known = list(dict.fromkeys(refs))
    mentioned = [ref for ref in cited_refs(answer) if ref in set(known)]
    ordered = mentioned + [ref for ref in known if ref not in set(mentioned)]
    return {ref: number for number, ref in enumerate(ordered, start=1)}


def renumber_markers(answer: str, numbers: Mapping[int, int]) -> str:
    """The answer with each `[Ref: N]` renumbered by `numbers`; a marker with no source is
    dropped with the spaces before it: its number would point at another answer's source."""
    kept, last = [], 0
    for marker in REF.finditer(answer):
        number = numbers.get(int(marker.group(1)))
        before = answer[last : marker.start()]
        kept.append(before.rstrip(" \t") if number is None else f"{before}[Ref: {number}]")
        last = marker.end()
    kept.append(answer[last:])
    return "".join(kept)


class StreamedMarkers:
    """Renumbers the markers of an answer streamed piece by piece as `first_mention_numbers`
    would (1…n in order of first mention, a marker with no source dropped); a piece that ends
    inside what may be a marker is held back until the marker is whole."""

    _PARTIAL = re.compile(r"\[(?:R(?:e(?:f(?::\s*\d*)?)?)?)?$")

    def __init__(self, refs: Iterable[int]) -> None:
        self._known = set(refs)
        self.numbers: dict[int, int] = {}
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        partial = self._PARTIAL.search(text)
        cut = partial.start() if partial else len(text)
        self._held = text[cut:]
        for ref in cited_refs(text[:cut]):
            if ref in self._known:
                self.numbers.setdefault(ref, len(self.numbers) + 1)
        return renumber_markers(text[:cut], self.numbers)

    def flush(self) -> str:
        """What was held back at the end: not a marker after all."""
        held, self._held = self._held, ""
        return held
