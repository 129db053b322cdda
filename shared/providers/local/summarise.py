"""Offline summaries for seed 003's two paths: per section, and per file from the sections."""

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from shared.providers.local.artisan_cut import salience
from shared.providers.local.summary import ranked_sentences, section_summary
from shared.providers.local.titles import is_topical
from shared.text.words import shorten, stem, words

FILE_SUMMARY_CHARS = 1200
_OPENING_CHARS = 240
_POINT_CHARS = 180
_MAIN_TOPICS = 3
_TITLE_WEIGHT = 3  # a title names its section's topic; a summary word may be incidental
_TOPIC_WEIGHT = 1.5  # how much covering a main topic lifts a section's point
_REPEAT_PENALTY = 4.0  # a second point on an already covered title says less than a new one
# "EXPERT 2 (cont.): on pricing tiers" → label "EXPERT 2", topic "pricing tiers"
_LABELLED_TITLE = re.compile(
    r"^(?P<label>[^:]{1,40}?)(?:\s*\(cont\.\))?:\s+(?:on\s+)?(?P<rest>.+)$"
)
_PART_SUFFIX = re.compile(r"\s*\((?:part \d+|cont\.)\)\s*$", re.IGNORECASE)
_SUMMARY_LABEL = re.compile(r"^(?P<label>[A-Z][\w.'’ -]{0,30}?):\s+")
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]\"“”—–\n]+")


class LocalSummariser:
    """Offline summariser: extractive section summaries, a file summary built from them."""

    async def summarise_section(self, text: str, title: str) -> str:
        return section_summary(text, title)

    async def summarise_file(self, filename: str, sections: list[tuple[str, str]]) -> str:
        return file_summary(filename, sections)


@dataclass(frozen=True)
class _Section:
    index: int
    topic: str  # the title without speaker label or part number
    label: str  # the speaker or heading label the title carried, if any
    summary: str


def file_summary(filename: str, sections: list[tuple[str, str]]) -> str:
    """An opening line naming the file and its main subject, then its most salient points."""
    parsed = [_parse(index, title, summary) for index, (title, summary) in enumerate(sections)]
    parsed = [section for section in parsed if section.topic or section.summary]
    if not parsed:
        return shorten(f"{filename}: an empty document with nothing to summarise.", _OPENING_CHARS)
    topics = main_topics(parsed)
    opening = opening_line(filename, topics, parsed)
    budget = FILE_SUMMARY_CHARS - len(opening)
    return "\n".join([opening, *salient_points(parsed, topics, budget)])


def opening_line(filename: str, topics: list[str], sections: list[_Section]) -> str:
    """'report.md: 12 sections on pricing tiers, churn and hiring plan.'"""
    count = f"{len(sections)} section{'s' if len(sections) != 1 else ''}"
    if topics:
        subject = topics[0] if len(topics) == 1 else f"{', '.join(topics[:-1])} and {topics[-1]}"
        line = f"{filename}: {count} on {subject}."
    else:
        first = sections[0].topic or shorten(sections[0].summary, 60)
        line = f"{filename}: {count}, opening with {first}."
    return shorten(line, _OPENING_CHARS, "…")


def main_topics(sections: list[_Section]) -> list[str]:
    """The phrases most sections return to; named in a title when titles name topics at all."""
    weights: Counter[tuple[str, ...]] = Counter()
    surface: dict[tuple[str, ...], str] = {}
    in_titles: set[tuple[str, ...]] = set()
    for section in sections:
        for key, (phrase, weight) in _section_terms(section).items():
            weights[key] += weight
            surface.setdefault(key, phrase)
            if weight == _TITLE_WEIGHT:
                in_titles.add(key)
    # summaries repeat verbs such as 'decided'; a topic is what the titles keep naming
    candidates = [key for key in weights if key in in_titles] if in_titles else list(weights)
    ranked = sorted(candidates, key=lambda key: (-_topic_weight(key, weights), -len(key), key))
    chosen: list[tuple[str, ...]] = []
    for key in ranked:
        if weights[key] < 2 or len(chosen) == _MAIN_TOPICS:
            break  # a phrase that occurs once is no subject of the whole file
        if not any(set(key) & set(taken) for taken in chosen):
            chosen.append(key)
    return [surface[key] for key in chosen]


def _topic_weight(key: tuple[str, ...], weights: Counter[tuple[str, ...]]) -> float:
    return weights[key] * (1.5 if len(key) == 2 else 1.0)  # a phrase names a topic better


def _section_terms(section: _Section) -> dict[tuple[str, ...], tuple[str, int]]:
    """Each topical word and word pair of a section once, with the weight of where it occurs."""
    terms: dict[tuple[str, ...], tuple[str, int]] = {}
    for text, weight in ((section.summary, 1), (section.topic, _TITLE_WEIGHT)):
        for clause in _CLAUSE_BREAK.split(text):
            tokens = [token for token in words(clause) if is_topical(token)]
            for token in tokens:
                terms[(stem(token),)] = (token, weight)
            for first, second in pairwise(words(clause)):
                if is_topical(first) and is_topical(second):
                    terms[(stem(first), stem(second))] = (f"{first} {second}", weight)
    return terms


def salient_points(sections: list[_Section], topics: list[str], budget: int) -> list[str]:
    """Points for the most salient sections that fit the budget, in document order."""
    topic_stems = {stem(word) for topic in topics for word in words(topic)}
    base = {section.index: _base_score(section, topic_stems) for section in sections}
    remaining = {section.index: section for section in sections}
    covered: Counter[str] = Counter()  # points made per section topic
    said: set[str] = set()  # sentences already used: a refrain is worth one point at most
    chosen: list[tuple[int, str]] = []
    used = 0
    while remaining:
        best = max(
            remaining.values(),
            key=lambda item: (
                base[item.index] - _REPEAT_PENALTY * covered[item.topic.lower()],
                -item.index,
            ),
        )
        del remaining[best.index]
        point, sentence = _point(best, said)
        if used + len(point) + 1 > budget:
            continue  # a shorter point further down may still fit
        chosen.append((best.index, point))
        covered[best.topic.lower()] += 1
        said.add(sentence)
        used += len(point) + 1
    return [point for _, point in sorted(chosen)]


def _base_score(section: _Section, topic_stems: set[str]) -> float:
    """Salience of what the section says, lifted by each main topic it touches."""
    on_topic = len(
        topic_stems & {stem(word) for word in words(f"{section.topic} {section.summary}")}
    )
    return salience(section.summary or section.topic) + _TOPIC_WEIGHT * on_topic


def _point(section: _Section, said: set[str]) -> tuple[str, str]:
    """'- Pricing tiers (EXPERT 2): We moved to usage tiers.', and the sentence it uses."""
    head = section.topic[:1].upper() + section.topic[1:]
    if section.label:
        head = f"{head} ({section.label})" if head else section.label
    # one sentence per point, one not used before: more sections get a say in the length
    ranked = [item.text for item in ranked_sentences(section.summary, section.topic)]
    fresh = [sentence for sentence in ranked if sentence.lower() not in said]
    sentence = (fresh or ranked or [section.summary])[0]
    if not sentence:
        return shorten(f"- {head}", _POINT_CHARS, "…"), ""
    point = f"- {head}: {sentence}" if head else f"- {sentence}"
    return shorten(point, _POINT_CHARS, "…"), sentence.lower()


def _parse(index: int, title: str, summary: str) -> _Section:
    """Split a title into label and topic; move a summary's speaker label to the title."""
    title = _PART_SUFFIX.sub("", " ".join(title.split()))
    summary = " ".join(summary.split())
    label, topic = "", title
    if match := _LABELLED_TITLE.match(title):
        label, topic = match.group("label").strip(), match.group("rest").strip()
    if match := _SUMMARY_LABEL.match(summary):
        label = label or match.group("label").strip()
        if match.group("label").strip() == label:
            summary = summary[match.end() :]
    return _Section(index, topic, label, summary)
