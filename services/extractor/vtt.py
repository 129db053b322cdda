"""WebVTT captions to a readable transcript: one paragraph per speaker turn."""

import html
import re
from dataclasses import dataclass

_TIME = r"(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}"
_TIMING = re.compile(rf"^\s*(?P<start>{_TIME})\s+-->\s+(?P<end>{_TIME})")
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+(?P<name>[^>]+)>")
_TAG = re.compile(r"</?[^>]*>")
# "Jane Doe: hello" style speakers used by meeting tools that skip <v> tags
_LABEL = re.compile(r"^(?P<name>[A-Z][\w.'’-]*(?: [\w.'’-]+){0,3}):\s+(?P<rest>\S.*)$")
_NON_CUE_BLOCKS = ("WEBVTT", "NOTE", "STYLE", "REGION")
# captions without speakers: a pause this long starts a new paragraph
_PARAGRAPH_PAUSE_SECONDS = 2.0


@dataclass
class _Segment:
    speaker: str | None
    text: str
    start: float | None
    end: float | None


def vtt_to_text(source: str) -> str:
    """Cue text of a WebVTT file, consecutive cues of one speaker merged into a paragraph."""
    segments: list[_Segment] = []
    for block in re.split(r"\n\s*\n", source.strip()):
        segments.extend(_block_segments(block))
    return "\n\n".join(_paragraphs(segments))


def _block_segments(block: str) -> list[_Segment]:
    lines = [line for line in block.split("\n") if line.strip()]
    if not lines or _is_non_cue(lines[0]):
        return []
    for index, line in enumerate(lines):
        timing = _TIMING.match(line)
        if timing:
            start, end = _seconds(timing.group("start")), _seconds(timing.group("end"))
            return _payload_segments(lines[index + 1 :], start, end)
    # not a cue by the spec, but keep its words unless it is a bare cue number
    payload = [line for line in lines if not line.strip().isdigit()]
    return _payload_segments(payload, None, None)


def _is_non_cue(first_line: str) -> bool:
    word = first_line.strip().split(" ", 1)[0].split("\t", 1)[0]
    return word in _NON_CUE_BLOCKS


def _payload_segments(lines: list[str], start: float | None, end: float | None) -> list[_Segment]:
    segments: list[_Segment] = []
    speaker: str | None = None
    for line in lines:
        voice = _VOICE.search(line)
        if voice:
            speaker = voice.group("name").strip()
        text = " ".join(html.unescape(_TAG.sub("", line)).split())
        label = _LABEL.match(text) if not voice else None
        if label:
            speaker, text = label.group("name"), label.group("rest")
        if text:
            segments.append(_Segment(speaker, text, start, end))
    return segments


def _paragraphs(segments: list[_Segment]) -> list[str]:
    paragraphs: list[str] = []
    current: _Segment | None = None
    for segment in segments:
        if current and current.text == segment.text:
            continue  # rolling captions repeat the previous line
        if current and _continues(current, segment):
            current.text = f"{current.text} {segment.text}"
            current.end = segment.end
            continue
        if current:
            paragraphs.append(_render(current))
        current = _Segment(segment.speaker, segment.text, segment.start, segment.end)
    if current:
        paragraphs.append(_render(current))
    return paragraphs


def _continues(current: _Segment, segment: _Segment) -> bool:
    if current.speaker != segment.speaker:
        return False
    if current.speaker is not None:
        return True
    if current.end is None or segment.start is None:
        return True
    return segment.start - current.end < _PARAGRAPH_PAUSE_SECONDS


def _render(segment: _Segment) -> str:
    return f"{segment.speaker}: {segment.text}" if segment.speaker else segment.text


def _seconds(timestamp: str) -> float:
    parts = timestamp.replace(",", ".").split(":")
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(part)
    return seconds
