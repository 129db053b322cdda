"""Strategic vs factual by counting cues: reflection and decisions against data and records."""

import re

from shared.domain import ChunkType, FileType
from shared.providers.cpu import run_sized
from shared.providers.local.boundaries import line_boundaries
from shared.text.boundaries import BoundaryLevel
from shared.text.words import word_set, words

# first-person voice, modal verbs, advice and decision vocabulary
_FIRST_PERSON = word_set(
    "i we my our us me i'm we're i've we've i'd we'd let's ours myself ourselves"
)
_SECOND_PERSON = word_set("you your you're you'd you'll yourself")
_MODALS = word_set("should would could must might ought shall")
_DECISION_WORDS = word_set(
    """
    decide decided decides deciding decision decisions chose choose choosing choice recommend
    recommended recommendation recommendations suggest suggested advise advice strategy
    strategic plan plans planning priority priorities prioritize pivot believe think feel
    felt reflect reflection learned lesson lessons risk risks opportunity focus goal goals
    because therefore instead concern concerns approach vision tradeoff trade-off regret
    worried hope want prefer agree disagree convinced doubt mistake commit committed bet
    """
)
_STRATEGIC_PHRASES = re.compile(
    r"\b(?:we decided|i decided|going forward|next steps?|in my (?:opinion|view|experience)"
    r"|the reason|lessons? learned|my advice|if i were you|what if|we need to|we have to"
    r"|the question is|on the other hand|long[- ]term)\b",
    re.IGNORECASE,
)

# numbers, money, units, dates, tables, citations, definitions and log records
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+", re.MULTILINE)
_PERCENT = re.compile(r"\d\s?%|\bpercent\b|\bbps\b", re.IGNORECASE)
_MONEY = re.compile(
    r"[$€£¥]\s?\d|\b(?:USD|EUR|GBP|JPY|CHF)\b|\d\s?(?:million|billion|trillion|bn|mn|[MBK])\b",
)
_UNIT = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:kg|mg|km|cm|mm|mi|ft|lbs?|oz|ml|[kmgt]b|ms|sec|hrs?|[kmg]hz|kwh?"
    r"|mw|°[cf]|x|units?|users|customers|employees|hours|days|years)\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(?:19|20)\d{2}-\d{2}-\d{2}\b|\b(?:Q[1-4]|H[12]|FY)\s?'?(?:19|20)?\d{2}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:,\s*\d{4})?\b"
    r"|\b(?:19|20)\d{2}\b",
    re.IGNORECASE,
)
_CITATION = re.compile(
    r"\[\d+(?:[,–-]\s?\d+)*\]|\([A-Z][A-Za-z-]+(?: et al\.)?,? (?:19|20)\d{2}[a-z]?\)|\bet al\."
    r"|\bdoi:|https?://|\bsource:|\baccording to\b|\b(?:table|figure|fig\.|exhibit|appendix)\s+\d",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"\b(?:is defined as|are defined as|refers to|is known as|consists of|is measured|"
    r"is calculated|denotes|stands for)\b",
    re.IGNORECASE,
)
_TABLE_LINE = re.compile(
    r"^.*(?:\|.*\||\t.*\t|\S(?: {2,}|\t)[-+$€£]?\d[\d.,]*%?\s*$).*$", re.MULTILINE
)
_LOG_LINE = re.compile(
    r"^\s*\[?(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} +\d{1,2} \d{2}:)"
    r"|\b(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b|\b\w+=\S+",
    re.MULTILINE,
)
_REPORTING = word_set(
    """
    increased decreased grew declined rose fell totaled totalled amounted accounted reported
    compared respectively approximately average median revenue revenues margin margins ebitda
    quarter quarterly annual annually fiscal percent share growth yoy year-over-year per total
    consists located founded population measured estimated
    """
)
_MIXED_SHARE = 0.25  # each kind must hold at least this share of a file's words to be mixed
_SECTION_WORDS = 60  # paragraphs are grouped into sections of at least this many words


def strategic_signal(text: str) -> float:
    """Strategic cues per 100 words: voice, modality, decisions, advice, questions, turns."""
    tokens = words(text)
    if not tokens:
        return 0.0
    score = sum(1.0 for token in tokens if token in _FIRST_PERSON)
    score += sum(0.5 for token in tokens if token in _SECOND_PERSON)
    score += sum(1.0 for token in tokens if token in _MODALS)
    score += sum(1.5 for token in tokens if token in _DECISION_WORDS)
    score += 2.0 * len(_STRATEGIC_PHRASES.findall(text))
    score += 1.5 * text.count("?")
    score += 3.0 * sum(found.level == BoundaryLevel.SPEAKER for found in line_boundaries(text))
    return 100.0 * score / len(tokens)


def factual_signal(text: str) -> float:
    """Factual cues per 100 words: numbers, money, units, dates, tables, citations, records."""
    tokens = words(text)
    if not tokens:
        return 0.0
    # a number counts once in full; its %, currency or unit only adds a little more
    score = 1.0 * len(_NUMBER.findall(_LIST_MARKER.sub("", text)))
    score += 0.5 * len(_PERCENT.findall(text))
    score += 0.5 * len(_MONEY.findall(text))
    score += 0.5 * len(_UNIT.findall(text))
    score += 0.5 * len(_DATE.findall(text))
    score += 2.0 * len(_CITATION.findall(text))
    score += 2.0 * len(_DEFINITION.findall(text))
    score += 2.0 * len(_TABLE_LINE.findall(text))
    score += 2.0 * len(_LOG_LINE.findall(text))
    score += sum(0.7 for token in tokens if token in _REPORTING)
    return 100.0 * score / len(tokens)


def classify_chunk_text(text: str) -> ChunkType:
    """Strategic when its strategic cues outweigh its factual ones; factual by default."""
    strategic = strategic_signal(text)
    if strategic > 0 and strategic >= factual_signal(text):
        return ChunkType.STRATEGIC
    return ChunkType.FACTUAL


def classify_file_text(text: str) -> FileType:
    """Mixed when both kinds hold a substantial share of the sections; otherwise the majority."""
    strategic_words = factual_words = 0
    for section in sections(text):
        size = len(section.split())
        if classify_chunk_text(section) == ChunkType.STRATEGIC:
            strategic_words += size
        else:
            factual_words += size
    total = strategic_words + factual_words
    if total == 0:
        return FileType.FACTUAL
    strategic_share = strategic_words / total
    if _MIXED_SHARE <= strategic_share <= 1 - _MIXED_SHARE:
        return FileType.MIXED
    return FileType.STRATEGIC if strategic_share > 0.5 else FileType.FACTUAL


def sections(text: str) -> list[str]:
    """Blank-line paragraphs, headings kept with what follows, small neighbours grouped."""
    paragraphs = [paragraph for paragraph in re.split(r"\n\s*\n", text) if paragraph.strip()]
    total = sum(len(paragraph.split()) for paragraph in paragraphs)
    # a short document is judged paragraph by paragraph, a long one in larger sections
    minimum = min(_SECTION_WORDS, max(5, total // 8))
    grouped: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in paragraphs:
        current.append(paragraph)
        size += len(paragraph.split())
        if size >= minimum and not _is_heading_like(paragraph):
            grouped.append("\n\n".join(current))
            current, size = [], 0
    if current and grouped and size < minimum / 2:
        grouped[-1] += "\n\n" + "\n\n".join(current)
    elif current:
        grouped.append("\n\n".join(current))
    return grouped


def _is_heading_like(paragraph: str) -> bool:
    stripped = paragraph.strip()
    return len(stripped.split()) <= 10 and not stripped.endswith((".", "?", "!", ":"))


class LocalClassifier:
    """Offline classifier scoring strategic and factual cues."""

    async def classify_file(self, text: str) -> FileType:
        return await run_sized(len(text), classify_file_text, text)

    async def classify_chunk(self, text: str) -> ChunkType:
        return await run_sized(len(text), classify_chunk_text, text)
