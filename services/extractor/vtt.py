"""WebVTT captions to a readable transcript: one paragraph per speaker turn, parsed by webvtt-py."""

import html
import re
from dataclasses import dataclass, field

import webvtt
from webvtt.errors import MalformedCaptionError, MalformedFileError
from webvtt.models import Timestamp

from services.extractor.errors import ExtractionError

# searched per cue line: a name never holds '<' or '>', so each attempt ends at the next tag and
# the search stays linear on hostile lines like "<v a<v a<v a..."
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+(?P<name>[^\s<>][^<>]*)>")
# "Jane Doe: hello" style speakers used by meeting tools that skip <v> tags
_LABEL = re.compile(r"^(?P<name>[A-Z][\w.'’-]*(?: [\w.'’-]+){0,3}):\s+(?P<rest>\S.*)$")
# captions without speakers: a pause this long starts a new paragraph
_PARAGRAPH_PAUSE_SECONDS = 2.0


@dataclass
class _Segment:
    speaker: str | None
    text: str
    start: float
    end: float


@dataclass
class _Paragraph:
    speaker: str | None
    end: float
    parts: list[str] = field(default_factory=list)  # joined once: repeated += is quadratic


def vtt_to_text(source: str) -> str:
    """Cue text of a WebVTT file, consecutive cues of one speaker merged into a paragraph."""
    segments = [segment for caption in _captions(source) for segment in _segments(caption)]
    return "\n\n".join(_render(paragraph) for paragraph in _paragraphs(segments))


def _captions(source: str) -> list[webvtt.Caption]:
    if not source.startswith("WEBVTT"):
        source = f"WEBVTT\n\n{source}"  # a missing header is common and harmless: read the cues
    # editors leave spaces on the line between cues; WebVTT would read the next cue's number as
    # text of this one, so such lines count as blank
    source = "\n".join(line if line.strip() else "" for line in source.split("\n"))
    try:
        captions = webvtt.from_string(source).captions
    except (MalformedFileError, MalformedCaptionError) as error:
        raise ExtractionError(f"could not read the WebVTT captions ({error})") from None
    if not captions:
        raise ExtractionError(
            "no captions found in the .vtt file: each caption needs a timing line such as "
            "'00:00:01.000 --> 00:00:04.000' followed by its text"
        )
    return captions


def _segments(caption: webvtt.Caption) -> list[_Segment]:
    """One segment per caption line, with the speaker its voice tag or name label gives."""
    start, end = _seconds(caption.start_time), _seconds(caption.end_time)
    segments: list[_Segment] = []
    speaker: str | None = None
    # webvtt-py strips the cue tags line by line, so raw and plain lines pair up
    plain_lines = caption.text.split("\n") if caption.lines else []
    for raw, plain in zip(caption.lines, plain_lines, strict=True):
        voice = _VOICE.search(raw)
        if voice:
            speaker = voice.group("name").strip()
        text = " ".join(html.unescape(plain).split())
        label = _LABEL.match(text) if not voice else None
        if label:
            speaker, text = label.group("name"), label.group("rest")
        if text:
            segments.append(_Segment(speaker, text, start, end))
    return segments


def _paragraphs(segments: list[_Segment]) -> list[_Paragraph]:
    paragraphs: list[_Paragraph] = []
    previous: _Segment | None = None
    for segment in segments:
        if previous and previous.text == segment.text:
            continue  # rolling captions repeat the previous line
        current = paragraphs[-1] if paragraphs else None
        if current and _continues(current, segment):
            current.parts.append(segment.text)
            current.end = segment.end
        else:
            paragraphs.append(_Paragraph(segment.speaker, segment.end, [segment.text]))
        previous = segment
    return paragraphs


def _continues(paragraph: _Paragraph, segment: _Segment) -> bool:
    if paragraph.speaker != segment.speaker:
        return False
    if paragraph.speaker is not None:
        return True
    return segment.start - paragraph.end < _PARAGRAPH_PAUSE_SECONDS


def _seconds(timestamp: Timestamp) -> float:
    return timestamp.in_milliseconds() / 1000


def _render(paragraph: _Paragraph) -> str:
    text = " ".join(paragraph.parts)
    return f"{paragraph.speaker}: {text}" if paragraph.speaker else text
