"""Where a text may be cut, strongest first: headings, speaker turns, paragraphs, lines."""

import re
from collections import Counter
from dataclasses import dataclass

from shared.text.boundaries import BoundaryLevel
from shared.text.words import word_set


@dataclass(frozen=True)
class Boundary:
    """A line start where a chunk may begin, with the heading or speaker label found there."""

    position: int
    level: BoundaryLevel
    label: str = ""


@dataclass(frozen=True)
class _Line:
    start: int
    text: str  # without its newline
    blank: bool


_MARKDOWN_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<title>.+?)[ \t#]*$")
_ADORNMENT = re.compile(r"^([=\-~^*+#\"'`:._])\1{2,}[ \t]*$")
_NUMBERED_HEADING = re.compile(
    r"^ {0,3}(?:\d{1,3}(?:\.\d{1,3}){0,4}[.)]?"
    r"|(?:section|chapter|part|article|appendix|annex)\s+(?:[\dIVXLCivxlc]{1,6}|[A-Z])[.:]?)"
    r"(?P<title>\s+\S.*?)?\s*$",
    re.IGNORECASE,
)
_NUMBERED_ITEM = re.compile(r"^\s*\d{1,3}[.)]\s")
_SPEAKER = re.compile(
    r"^ {0,3}(?:\*\*|__)?(?P<label>[A-Z][\w.'’-]*(?: [\w.'’-]+){0,3}?)(?:\s*\([^)\n]{0,24}\))?"
    r"(?:\*\*|__)?\s*:(?:\*\*|__)?(?:[ \t]+(?P<rest>\S.*))?[ \t]*$"
)
# labels that introduce a field or a log level, not a person speaking
_NOT_SPEAKERS = word_set(
    """
    note notes nb ps tip warning warn caution important info information debug error errors
    trace fatal todo fixme source sources see date time total subtotal subject from to cc bcc
    re url link email phone tel fax id status result results example examples summary tldr
    figure table step update edit version author title reason http https file path
    """
)
_ROLE_WORDS = word_set(
    "q a question answer interviewer interviewee moderator host guest speaker participant "
    "respondent boss expert narrator"
)
# a field of a table row as the extractor writes rows: 'Region: EMEA | Revenue: 4.9M'
_RECORD_FIELD = re.compile(r"[^:|]{1,60}: ")
_MAX_TITLE_CHARS = 100
_MAX_HEADING_WORDS = 12


def line_boundaries(text: str) -> list[Boundary]:
    """Every line start where a chunk may begin, in order, labelled with its strongest level."""
    lines = _split_lines(text)
    fenced = _fenced_lines(lines)
    label_counts = Counter(_speaker_candidate(line.text) for line in lines if not line.blank)
    boundaries: list[Boundary] = []
    consumed: set[int] = set()  # adornment lines that belong to the heading above or below
    for index, line in enumerate(lines):
        if line.blank or index in consumed:
            continue
        paragraph_start = index == 0 or lines[index - 1].blank
        if index in fenced:
            boundaries.append(_plain(line, paragraph_start))
            continue
        heading = _heading(lines, index, paragraph_start, consumed)
        if heading is not None:
            boundaries.append(Boundary(line.start, BoundaryLevel.HEADING, heading))
            continue
        speaker = _speaker(lines, index, paragraph_start, label_counts)
        if speaker is not None:
            boundaries.append(Boundary(line.start, BoundaryLevel.SPEAKER, speaker))
            continue
        boundaries.append(_plain(line, paragraph_start))
    return boundaries


def _split_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    start = 0
    while start < len(text):
        newline = text.find("\n", start)
        end = len(text) if newline == -1 else newline
        content = text[start:end]
        lines.append(_Line(start, content, not content.strip()))
        start = end + 1
    return lines


def _fenced_lines(lines: list[_Line]) -> set[int]:
    """Indices of lines inside ``` or ~~~ code fences, where '#' starts a comment."""
    fenced: set[int] = set()
    inside = False
    for index, line in enumerate(lines):
        if line.text.lstrip().startswith(("```", "~~~")):
            inside = not inside
            continue
        if inside:
            fenced.add(index)
    return fenced


def _plain(line: _Line, paragraph_start: bool) -> Boundary:
    return Boundary(line.start, BoundaryLevel.PARAGRAPH if paragraph_start else BoundaryLevel.LINE)


def _heading(
    lines: list[_Line], index: int, paragraph_start: bool, consumed: set[int]
) -> str | None:
    text = lines[index].text.strip()
    markdown = _MARKDOWN_HEADING.match(lines[index].text)
    if markdown:
        return _clean_title(markdown.group("title"))
    underlined = _underlined_title(lines, index, paragraph_start)
    if underlined is not None:
        title, adornments = underlined
        consumed.update(adornments)
        return title
    next_blank = index + 1 >= len(lines) or lines[index + 1].blank
    if paragraph_start and _is_numbered_heading(text, lines, index):
        return _clean_title(text)
    if (paragraph_start or next_blank) and _is_caps_heading(text) and not _SPEAKER.match(text):
        return _clean_title(text)
    return None


def _underlined_title(
    lines: list[_Line], index: int, paragraph_start: bool
) -> tuple[str, list[int]] | None:
    """A setext/rst title: 'Title' over '=====' (optionally with the same line above it)."""
    line = lines[index].text.strip()
    below = lines[index + 1].text.strip() if index + 1 < len(lines) else ""
    after = lines[index + 2].text.strip() if index + 2 < len(lines) else ""
    if _ADORNMENT.match(line) and after and after == line and below and paragraph_start:
        return _clean_title(below), [index + 1, index + 2]  # overline, title, underline
    underlined = _ADORNMENT.match(below) and not _ADORNMENT.match(line)
    if paragraph_start and underlined and len(line) <= _MAX_TITLE_CHARS:
        return _clean_title(line), [index + 1]
    return None


def _is_numbered_heading(text: str, lines: list[_Line], index: int) -> bool:
    match = _NUMBERED_HEADING.match(text)
    if not match or len(text) > 80 or text.rstrip().endswith((".", ",", ";", "!", "?")):
        return False
    title = (match.group("title") or "").strip()
    if text[0].isdigit() and not (title and title[0].isupper()):
        return False
    if not text[0].isdigit() and not text[0].isupper():
        return False  # "section 4 says..." is a sentence, "Section 4" a heading
    if len(title.split()) > _MAX_HEADING_WORDS:
        return False
    following = lines[index + 1].text if index + 1 < len(lines) else ""
    return not _NUMBERED_ITEM.match(following)  # the first item of a list is no heading


def _is_caps_heading(text: str) -> bool:
    if not 3 <= len(text) <= 80 or any(char.islower() for char in text) or "|" in text:
        return False
    if text.endswith((".", ",", ";", "!", "?")) or text.startswith(("-", "*", "•")):
        return False
    letters = sum(char.isalpha() for char in text)
    visible = sum(not char.isspace() for char in text)
    return letters >= 3 and letters / visible >= 0.6 and len(text.split()) <= _MAX_HEADING_WORDS


def _speaker_candidate(line: str) -> str | None:
    match = _SPEAKER.match(line)
    if not match or _is_record(line):
        return None
    label = match.group("label").strip()
    if label.lower() in _NOT_SPEAKERS:
        return None
    return label


def _is_record(line: str) -> bool:
    """A table row names its columns, not a person speaking."""
    fields = line.split(" | ", 2)[:2]
    return len(fields) == 2 and all(_RECORD_FIELD.match(field) for field in fields)


def _speaker(
    lines: list[_Line], index: int, paragraph_start: bool, label_counts: Counter[str | None]
) -> str | None:
    """The speaker label when this line opens a turn ('BOSS:', 'EXPERT 1:', 'Jane:', 'Q:')."""
    line = lines[index].text
    label = _speaker_candidate(line)
    if label is None:
        return None
    match = _SPEAKER.match(line)
    spoken = (match.group("rest") if match else None) or ""
    shouting = label == label.upper()
    if not spoken and not shouting:
        return None
    role = label.split()[0].lower() in _ROLE_WORDS
    if not (shouting or role or (label_counts[label] >= 2 and _looks_like_name(label))):
        return None  # "Reason: 40% of demand..." is a field; a speaker talks more than once
    previous = lines[index - 1].text.rstrip() if index else ""
    after_turn = bool(previous) and (
        previous.endswith((".", "?", "!", '"', "”", ")"))
        or _speaker_candidate(previous) is not None
    )
    return label if paragraph_start or shouting or after_turn else None


def _looks_like_name(label: str) -> bool:
    """'Jane Doe', 'Dr. Smith', 'Speaker 2' — not 'The trade-off is simple'."""
    return all(word[0].isupper() or word.isdigit() for word in label.split())


def _clean_title(title: str) -> str:
    title = " ".join(title.strip().strip("*_`").split())
    return title[:_MAX_TITLE_CHARS]
