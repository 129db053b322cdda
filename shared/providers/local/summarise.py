"""Offline summaries for seed 003's two paths: per section, and per file from the sections.

A file's summary says what the document is (its kind and title), then leads with what a reader
needs first, each under its heading: the decisions, the figures, the actions and their owners,
the dates and deadlines (key_points.py reads them from the sections' text: a note's own lists,
then what each sentence says). Then its other most informative sentences, quoted from the
section summaries, spread over the sections and their topics. Every point is quoted verbatim,
in document order within its group; a text with none of these keeps a plain list of points.
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from shared.providers.cpu import run_sized
from shared.providers.local.informative import centrality, informative_score, title_stems_of
from shared.providers.local.key_points import (
    KeyPoint,
    as_point,
    heading_cost,
    heading_line,
    key_points,
    lead_points,
    point_cost,
    point_key,
)
from shared.providers.local.summary import section_summary
from shared.text.sentences import sentence_spans
from shared.text.words import shorten, words

FILE_SUMMARY_CHARS = 1200
FILE_POINTS = 5  # sentences after the opening line
OTHER_POINTS = 3  # after the decisions, figures, actions and dates: what else it says
_OTHERS = "others"
_OPENING_CHARS = 240
_TITLE_CHARS = 90
_MIN_POINT_SCORE = 1.5  # a point after the first must carry a decision, figure, owner or date
_SAME_SECTION_PENALTY = 1.0
_SAME_TOPIC_PENALTY = 1.5  # a second point on a topic already covered says less than a new one
_SHORTLIST = 60  # the best-scored points the spread over sections and topics chooses from
# "EXPERT 2 (cont.): on pricing tiers" → label "EXPERT 2", topic "pricing tiers"
_LABELLED_TITLE = re.compile(
    r"^(?P<label>[^:]{1,40}?)(?:\s*\(cont\.\))?:\s+(?:on\s+)?(?P<rest>.+)$"
)
_PART_SUFFIX = re.compile(r"\s*\((?:part \d+|cont\.)\)\s*$", re.IGNORECASE)
_SUMMARY_LABEL = re.compile(r"^(?P<label>[A-Z][\w.'’ -]{0,30}?):\s+")
# what a document is, from words of its name and title; the first match wins
_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b(?:{pattern})", re.IGNORECASE), kind)
    for pattern, kind in (
        (r"board|meeting|minutes|stand-?up|sync|retro|offsite|all-hands", "meeting notes"),
        (r"interview", "an interview transcript"),
        (r"transcript|call|podcast", "a transcript"),
        (r"roadmap|plan", "a plan"),
        (r"decision|memo|rfc", "a decision memo"),
        (r"proposal|pitch", "a proposal"),
        (r"report|metrics|kpi|review|results|financials|q[1-4]\b", "a report"),
        (r"contract|agreement|terms|nda|msa", "an agreement"),
        (r"policy|handbook|guideline", "a policy"),
        (r"notes", "notes"),
    )
)


class LocalSummariser:
    """Offline summariser: extractive section summaries, a file summary built from them."""

    async def summarise_section(self, text: str, title: str) -> str:
        return await run_sized(len(text), section_summary, text, title)

    async def summarise_file(
        self, filename: str, sections: list[tuple[str, str]], texts: Sequence[str] = ()
    ) -> str:
        size = sum(len(title) + len(text) for title, text in sections) + sum(map(len, texts))
        return await run_sized(size, file_summary, filename, sections, texts)


@dataclass(frozen=True)
class _Section:
    index: int
    topic: str  # the title without speaker label or part number
    label: str  # the speaker or heading label the title carried, if any
    summary: str


@dataclass(frozen=True)
class _Point:
    section: int
    order: int  # position among every sentence of the summaries
    topic: str
    text: str  # as quoted: the summary's own sentence, its speaker named
    score: float


def file_summary(filename: str, sections: list[tuple[str, str]], texts: Sequence[str] = ()) -> str:
    """'board.md: meeting notes, “Board meeting — March 2025”.', then its decisions, figures,
    actions and dates under their headings, then its other telling sentences; `texts` are the
    sections' own texts (without them, the section summaries are read instead)."""
    parsed = [_parse(index, title, summary) for index, (title, summary) in enumerate(sections)]
    parsed = [section for section in parsed if section.topic or section.summary]
    if not parsed:
        return shorten(f"{filename}: an empty document with nothing to summarise.", _OPENING_CHARS)
    opening = opening_line(filename, parsed)
    read = (
        sections
        if len(texts) != len(sections)
        else [(title, text) for (title, _), text in zip(sections, texts, strict=True)]
    )
    found = key_points(read)
    leads = lead_points(found, FILE_SUMMARY_CHARS - len(opening))
    budget = FILE_SUMMARY_CHARS - len(opening) - _rendered_cost(leads)
    if leads:  # "### Other points" takes its room; its points are what no group holds
        budget -= heading_cost(_OTHERS)
    others = [
        point
        for point in _points(parsed)
        if as_point(point.text) and not _said_already(point.text, found, leads)
    ]
    chosen = best_points(others, budget, OTHER_POINTS if leads else FILE_POINTS)
    return render(opening, leads, [point.text for point in chosen])


def render(opening: str, leads: dict[str, list[KeyPoint]], others: list[str]) -> str:
    """The opening line; each group under its heading; the other points (under a heading of
    their own only when groups precede them: no empty headings)."""
    if not leads:
        return "\n".join([opening, *(f"- {text}" for text in others)])
    blocks = [opening]
    for group, points in leads.items():
        blocks.append("\n".join([heading_line(group), *(f"- {p.text}" for p in points)]))
    if others:
        blocks.append("\n".join([heading_line(_OTHERS), *(f"- {text}" for text in others)]))
    return "\n\n".join(blocks)


def _said_already(text: str, found: list[KeyPoint], leads: dict[str, list[KeyPoint]]) -> bool:
    """Whether a section summary's sentence is a key point, or holds one the summary shows (a
    section summary may run a title line and a sentence together)."""
    key = point_key(_unlabelled(text))
    if any(point.key == key for point in found):
        return True
    shown = [point.key for points in leads.values() for point in points]
    return any(other in key or key in other for other in shown)


def _unlabelled(text: str) -> str:
    """A sentence without its label ("Anna: …", "Action: …"): what it says."""
    label = _SUMMARY_LABEL.match(text)
    return text[label.end() :] if label else text


def _rendered_cost(leads: dict[str, list[KeyPoint]]) -> int:
    return sum(
        heading_cost(group) + sum(point_cost(p.text) for p in points)
        for group, points in leads.items()
    )


def opening_line(filename: str, sections: list[_Section]) -> str:
    """What the document is: its kind and, when its first section is headed, its title."""
    first = sections[0]
    labelled = sum(bool(section.label) for section in sections) > len(sections) / 2
    title = "" if labelled or not _is_heading_like(first.topic, first.summary) else first.topic
    kind = document_kind(f"{filename} {title}", labelled)
    line = f"{filename}: {kind}, “{shorten(title, _TITLE_CHARS, '…')}”." if title else ""
    return shorten(line or f"{filename}: {kind}.", _OPENING_CHARS, "…")


def document_kind(name_and_title: str, labelled: bool) -> str:
    """'meeting notes', 'a plan', 'an interview transcript', … or 'a document'."""
    spaced = re.sub(r"[-_.]+", " ", name_and_title)
    for pattern, kind in _KINDS:
        if pattern.search(spaced):
            return kind
    return "a transcript" if labelled else "a document"


def _is_heading_like(topic: str, summary: str) -> bool:
    """A title from a heading, not the first words of the text standing in for one."""
    if not topic or topic.endswith(("…", ".", "!", "?")) or len(words(topic)) > 12:
        return False
    return not " ".join(summary.split()).startswith(topic)


def _points(sections: list[_Section]) -> list[_Point]:
    """Every sentence of the section summaries with its informativeness."""
    found: list[tuple[_Section, str]] = []
    for section in sections:
        speaker = section.label
        for start, end in sentence_spans(section.summary):
            sentence = section.summary[start:end]
            if match := _SUMMARY_LABEL.match(sentence):
                speaker, sentence = match.group("label").strip(), sentence[match.end() :]
            if words(sentence):
                found.append((section, f"{speaker}: {sentence}" if speaker else sentence))
    central = centrality([text for _, text in found])
    return [
        _Point(
            section=section.index,
            order=order,
            topic=section.topic.lower(),
            text=text,
            score=informative_score(text, title_stems=title_stems_of(section.topic))
            + central[order],
        )
        for order, (section, text) in enumerate(found)
    ]


def best_points(points: list[_Point], budget: int, limit: int = FILE_POINTS) -> list[_Point]:
    """Up to `limit` telling sentences, spread over sections and topics, each said once, that
    fit the budget; in document order."""
    said: set[str] = set()
    distinct = []
    for point in sorted(points, key=lambda point: (-point.score, point.order)):
        key = re.sub(r"[\d\W]+", " ", point.text.lower()).strip()
        if key not in said:  # a refrain is worth one point at most
            said.add(key)
            distinct.append(point)
    # the best, then only points that say something; the spread only reorders the front runners
    remaining = distinct[:1] + [p for p in distinct[1:] if p.score >= _MIN_POINT_SCORE]
    remaining = remaining[:_SHORTLIST]
    chosen: list[_Point] = []
    per_section: Counter[int] = Counter()
    per_topic: Counter[str] = Counter()
    used = 0

    def worth(point: _Point) -> float:
        # spread over sections, and over topics that several sections share
        elsewhere = per_topic[point.topic] - per_section[point.section]
        return (
            point.score
            - _SAME_SECTION_PENALTY * per_section[point.section]
            - _SAME_TOPIC_PENALTY * elsewhere
        )

    while remaining and len(chosen) < limit:
        best = max(remaining, key=lambda point: (worth(point), -point.order))
        remaining.remove(best)
        if used + len(best.text) + 3 > budget:
            continue  # a shorter point further down may still fit
        chosen.append(best)
        per_section[best.section] += 1
        per_topic[best.topic] += 1
        used += len(best.text) + 3
    return sorted(chosen, key=lambda point: point.order)


def _parse(index: int, title: str, summary: str) -> _Section:
    """Split a title into label and topic; move a summary's speaker label to the title."""
    title = _PART_SUFFIX.sub("", " ".join(title.split()))
    summary = " ".join(summary.split())
    label, topic = "", title
    if match := _LABELLED_TITLE.match(title):
        label, topic = match.group("label").strip(), match.group("rest").strip()
    if match := _SUMMARY_LABEL.match(summary):
        label = label or match.group("label").strip()
    return _Section(index, topic, label, summary)
