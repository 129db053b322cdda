"""WebVTT transcripts: speakers, rolling captions and files that are not quite WebVTT."""

import pytest

from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text


def _transcript(source: str) -> str:
    return extract_text(source.encode(), "call.vtt")


def test_each_line_of_a_cue_keeps_its_own_speaker() -> None:
    source = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ann>Are you coming?\n<v Ben>In a minute.\n\n"
        "00:00:03.000 --> 00:00:05.000\n<c.yellow><v Ben>Wait for me.</v></c>\n"
    )
    assert _transcript(source) == "Ann: Are you coming?\n\nBen: In a minute. Wait for me.\n"


def test_rolling_captions_are_not_repeated() -> None:
    source = (
        "WEBVTT\nKind: captions\n\n00:00:00.320 --> 00:00:02.350 align:start position:0%\n"
        "hello<00:00:00.640><c> there</c>\n\n"
        "00:00:02.360 --> 00:00:05.000 align:start position:0%\n"
        "hello there\ntoday<c> we</c> talk\n\n"
        "00:00:05.010 --> 00:00:07.000 align:start position:0%\ntoday we talk\nabout pricing\n"
    )
    assert _transcript(source) == "hello there today we talk about pricing\n"


def test_a_missing_header_and_spaces_between_cues_are_tolerated() -> None:
    source = "1\n00:01.000 --> 00:02.000\nhello\n \n2\n00:02.000 --> 00:03.000\nworld\n"
    assert _transcript(source) == "hello world\n"


def test_text_without_any_cue_is_refused_with_the_reason() -> None:
    with pytest.raises(ExtractionError, match=r"no captions found.*-->"):
        _transcript("WEBVTT\n\njust some notes, no timings\n")
