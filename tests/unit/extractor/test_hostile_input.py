"""Hostile HTML and WebVTT take time linear in their size: one upload cannot stall the extractor."""

import contextlib
import time
from collections.abc import Callable

import pytest

from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text
from services.extractor.html_text import MAX_NESTING_DEPTH

_CUE = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"


def _seconds_to_extract(data: bytes, filename: str) -> float:
    """Best of three runs, so a busy machine does not make a linear reader look quadratic."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        # refusing the file is fine; taking long over it is not
        with contextlib.suppress(ExtractionError):
            extract_text(data, filename)
        best = min(best, time.perf_counter() - started)
    return best


def _assert_linear(make: Callable[[int], str], size: int, filename: str) -> None:
    """A generous bound the quadratic readers missed by orders of magnitude (the hand-written
    VTT parser: 1.5 s at 40 KB, so ~40 s here). No ratio of two timings: on a busy machine a
    20 ms run doubling to 140 ms failed a linear reader."""
    large = _seconds_to_extract(make(2 * size).encode(), filename)
    assert large < 2.0, f"{filename}: {large:.2f}s for {len(make(2 * size))} characters"


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda n: "<a " * n, id="unclosed-tags"),
        pytest.param(lambda n: "<" * (5 * n), id="bare-angle-brackets"),
        pytest.param(lambda n: "<div>" * n + "x", id="deep-nesting"),
        pytest.param(lambda n: "<span>" * 500 + "</x>" * n, id="stray-end-tags-at-depth"),
        pytest.param(lambda n: "<p>x" * (n // 4), id="many-unclosed-paragraphs"),
        pytest.param(
            lambda n: "".join(f"<b {i}><i {i}>" for i in range(n // 10)) + "x</b>" * (n // 10),
            id="misnested-formatting",
        ),
    ],
)
def test_hostile_html_extracts_in_linear_time(make: Callable[[int], str]) -> None:
    _assert_linear(make, 50_000, "hostile.html")


def test_the_reported_hostile_html_is_fast() -> None:
    assert _seconds_to_extract(("<a " * 200_000).encode(), "a.html") < 1.0
    assert _seconds_to_extract(("<" * 1_000_000).encode(), "b.html") < 1.0


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda n: "<v a" * n, id="voice-tags-without-header"),
        pytest.param(lambda n: _CUE + "<v a" * n, id="voice-tags-in-one-cue"),
        pytest.param(lambda n: _CUE + "<v a>x\n" * (n // 2), id="one-voice-per-line"),
        pytest.param(lambda n: _CUE + "Aa " * n, id="speaker-label-lookalike"),
        pytest.param(lambda n: _CUE + "-->" * n, id="arrows"),
        pytest.param(
            lambda n: (
                "WEBVTT\n\n"
                + "".join(
                    f"00:00:{i % 60:02d}.000 --> 00:00:{i % 60:02d}.500\n<v Bo>w{i}\n\n"
                    for i in range(n // 20)
                )
            ),
            id="one-speaker-many-cues",
        ),
    ],
)
def test_hostile_vtt_extracts_in_linear_time(make: Callable[[int], str]) -> None:
    _assert_linear(make, 25_000, "hostile.vtt")


def test_the_reported_hostile_vtt_is_fast() -> None:
    assert len("<v a" * 25_000) == 100_000
    assert _seconds_to_extract(("<v a" * 25_000).encode(), "call.vtt") < 0.5
    assert _seconds_to_extract((_CUE + "<v a" * 25_000).encode(), "call.vtt") < 0.5


def test_nesting_deeper_than_browsers_build_is_refused_clearly() -> None:
    depth = MAX_NESTING_DEPTH - 10  # html and body are open around the divs
    page = "<div>" * depth + "deep" + "</div>" * depth + "<p>after</p>"
    assert extract_text(page.encode(), "deep.html") == "deep\n\nafter\n"
    too_deep = "<div>" * (MAX_NESTING_DEPTH + 1) + "deep"
    with pytest.raises(ExtractionError, match=f"more than {MAX_NESTING_DEPTH} levels deep"):
        extract_text(too_deep.encode(), "deeper.html")
