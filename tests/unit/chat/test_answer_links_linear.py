"""Cleaning an answer of links holds on any text (generated samples, each cut into random
pieces) and runs in linear time on hostile text: a model can be made to write a megabyte of `[`,
and one answer must not hold the chat service for minutes.

The time is compared with a linear baseline of the same size read the slow way (one character
at a time, as the hostile inputs are): an answer re-read for every character held back (up to
MAX_HELD, 2,000) would take hundreds of times as long; the bound allowed is thirty."""

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from services.chat.answer_links import AnswerLinks, clean_answer
from services.chat.link_parts import urls_in

SIZE = 50_000
BASELINE = "a!"  # every '!' is looked at alone: might it open an image?
HOSTILE = [
    "[",  # brackets never closed
    "![",
    "](",  # addresses after nothing
    "[x](",  # addresses never closed
    "]: ",  # definitions without addresses
    "]: w",
    "<a ",  # tags never closed
    "<a:",  # autolinks never closed
    "<!",
    "<https:",
    "https://",  # addresses run together
    "www",
    "[\n",
    "[](",
]
FRAGMENTS = [
    *"[]()!<>:/ \n\"'`?#=-",
    "https://",
    "www.",
    "Ref: 1",
    "img src=",
    "<a href=",
    "](",
    "![",
    "<b>",
    "<!--",
    "[x]: ",
    "\n\n",
    "d=S",
    "x",
]
TAG_WITH_ATTRIBUTES = re.compile(
    r"""<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)+\s*/?>"""
)
FETCHING_TAG = re.compile(r"<(?:img|image|svg|style|script|iframe|a|video)(?![A-Za-z0-9-])", re.I)
ABSOLUTE_DEFINITION = re.compile(r"(?m)^ {0,3}\[[^\]\[]+\]:[ \t]*\n?[ \t]*(?:https?:|//|<[^\s<])")


def best_time(text: str, piece: int) -> float:
    def once() -> float:
        started = time.perf_counter()
        links = AnswerLinks()
        for at in range(0, len(text), piece):
            links.feed(text[at : at + piece])
        links.flush()
        return time.perf_counter() - started

    return min(once() for _ in range(3))


def test_hostile_answers_are_cleaned_in_linear_time() -> None:
    for piece in (SIZE, 7):  # whole, and as a model streams it
        baseline = best_time(BASELINE * (SIZE // len(BASELINE)), piece)
        for unit in HOSTILE:
            took = best_time(unit * (SIZE // len(unit)), piece)
            assert took < 30 * baseline, (unit, piece, took, baseline)


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(st.sampled_from(FRAGMENTS), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_no_generated_answer_leaves_with_a_link_or_an_image(
    parts: list[str], cuts: list[int]
) -> None:
    written = "".join(parts)
    cleaned = clean_answer(written)
    points = sorted({min(cut, len(written)) for cut in cuts})
    pieces = [written[a:b] for a, b in zip([0, *points], [*points, len(written)], strict=True)]
    links = AnswerLinks()
    assert "".join(links.feed(piece) for piece in pieces) + links.flush() == cleaned
    assert "](" not in cleaned  # no inline link or image
    assert not TAG_WITH_ATTRIBUTES.search(cleaned) and not FETCHING_TAG.search(cleaned)
    assert not ABSOLUTE_DEFINITION.search(cleaned)  # no reference to a remote address
    assert not any(re.search(r"[?#][^?#()]", url) for url in urls_in([cleaned]))
