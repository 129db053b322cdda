"""The one sentence splitter: where sentences start and end, its options, and its guarantees
(ordered, trimmed spans inside the text, nothing but whitespace left out, linear time)."""

from collections.abc import Callable
from functools import partial
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.text.sentences import sentence_spans, sentences
from tests.unit.text.linear_time import assert_fast, assert_linear

OPTIONS = [
    {},
    {"lowercase_continues": True},
    {"semicolons": True, "line_breaks": True},
    {"lowercase_continues": True, "semicolons": True, "line_breaks": True},
]


def test_sentences_end_at_stops_before_space_and_keep_their_closing_quotes() -> None:
    text = 'We raised prices. Did it work?! He said "yes." (It did.) Wait… fine 3.5 times'
    assert sentences(text) == [
        "We raised prices.",
        "Did it work?!",
        'He said "yes."',
        "(It did.)",
        "Wait…",
        "fine 3.5 times",
    ]


def test_cjk_stops_end_a_sentence_without_a_space() -> None:
    assert sentences("你好。世界！好吗？ ok") == ["你好。", "世界！", "好吗？", "ok"]


def test_a_blank_line_and_a_bullet_end_a_sentence_but_a_wrapped_line_does_not() -> None:
    text = "A heading\n\nA sentence that\nwraps onto a second line\n- first item\n* second item"
    assert sentences(text) == [
        "A heading",
        "A sentence that\nwraps onto a second line",
        "- first item",
        "* second item",
    ]


def test_spans_are_offsets_into_the_text_with_the_space_around_them_trimmed() -> None:
    text = "  One.   Two!  "
    assert sentence_spans(text) == [(2, 6), (9, 13)]
    assert sentence_spans("") == [] and sentence_spans(" \n\t ") == []


def test_a_range_is_split_as_if_it_were_the_whole_text() -> None:
    text = "Skip this. Take this one. And this"
    start = text.index("Take")
    assert sentence_spans(text, start) == [(start, start + 14), (start + 15, len(text))]
    # a range that starts inside a run of stops still ends a sentence at the run's end
    assert sentence_spans("x..... A", 3, 8) == [(3, 6), (7, 8)]


def test_lowercase_continues_keeps_abbreviations_inside_their_sentence() -> None:
    text = "Use approx. ten units, e.g.  the small ones. Then stop."
    assert sentences(text, lowercase_continues=True) == [
        "Use approx. ten units, e.g.  the small ones.",
        "Then stop.",
    ]
    assert len(sentences(text)) == 4


def test_semicolons_and_line_breaks_split_a_chat_message_into_clauses_and_lines() -> None:
    message = "I run sales; we ship weekly\nWhat do you think"
    assert sentences(message) == ["I run sales; we ship weekly\nWhat do you think"]
    assert sentences(message, semicolons=True, line_breaks=True) == [
        "I run sales;",
        "we ship weekly",
        "What do you think",
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab .;!?…。\"')\n\t-*•", max_size=200) | st.text(max_size=200),
    st.sampled_from(OPTIONS),
)
def test_spans_are_ordered_trimmed_and_leave_out_only_whitespace(text: str, options: dict) -> None:
    spans = sentence_spans(text, **options)
    for start, end in spans:
        assert 0 <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()
    for (_, end), (start, _) in pairwise(spans):
        assert end <= start  # in order, never overlapping
    covered = "".join(text[start:end] for start, end in spans)
    assert "".join(covered.split()) == "".join(text.split())
    assert sentences(text, **options) == [text[start:end] for start, end in spans]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .!?\n", max_size=80), st.data())
def test_a_range_gives_the_spans_of_its_slice(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    shifted = [(start + s, start + e) for s, e in sentence_spans(text[start:end])]
    assert sentence_spans(text, start, end) == shifted


HOSTILE: list[Callable[[int], str]] = [
    lambda n: "." * n,  # one long run of stops and no space after it
    lambda n: ". " * (n // 2),
    lambda n: ".)" * (n // 2),
    lambda n: "\n" + " " * n,  # a line break that never reaches a blank line or a bullet
    lambda n: "e.g. a" * (n // 6),
    lambda n: ";" * n,
    lambda n: "。" * n,
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("make", HOSTILE)
def test_hostile_text_is_split_in_linear_time(make: Callable[[int], str], options: dict) -> None:
    assert_linear(partial(sentence_spans, **options), make, 50_000)


def test_the_largest_hostile_texts_are_fast() -> None:
    assert_fast(sentence_spans, ". " * 200_000, 1.0)
    assert_fast(sentence_spans, "a" * 1_000_000, 0.5)
    assert_fast(sentence_spans, "." * 1_000_000, 0.5)
