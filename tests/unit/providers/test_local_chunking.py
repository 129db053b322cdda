"""Local chunker: exact coverage always, boundaries at the document's own structure."""

import random
import re
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import ChunkSpan
from shared.providers.local import LocalChunker
from shared.providers.local.chunking import chunk_text
from shared.text.spans import validate_spans
from tests.fixtures.transcripts import interview_transcript, turn_offsets

CHUNK_SUMMARY_CHARS = 600  # the design's bound for a chunk (section) summary
_VOCABULARY = [
    *("market", "pricing", "customer", "revenue", "churn", "team", "product", "launch"),
    *("budget", "plan", "growth", "hiring", "sales", "quarter", "risk", "partner"),
    *("contract", "onboarding", "support", "roadmap", "feature", "region"),
]


def _paragraph(words: int, seed: int) -> str:
    """A paragraph of `words` words in sentences of 8-16 words."""
    rng = random.Random(seed)
    sentences: list[str] = []
    remaining = words
    while remaining > 0:
        length = min(remaining, rng.randint(8, 16))
        sentence = " ".join(rng.choice(_VOCABULARY) for _ in range(length))
        sentences.append(sentence.capitalize() + ".")
        remaining -= length
    return " ".join(sentences)


def _words(text: str) -> int:
    return len(text.split())


def _assert_exact_cover(text: str, spans: list[ChunkSpan]) -> None:
    assert spans[0].start == 0 and spans[-1].end == len(text)
    for previous, following in pairwise(spans):
        assert previous.end == following.start
    assert all(span.start < span.end and span.title.strip() for span in spans)
    assert "".join(text[span.start : span.end] for span in spans) == text


_BLOCKS = st.sampled_from(
    [
        "# Heading\n",
        "## Sub heading\n",
        "Title\n=====\n",
        "Other\n-----\n",
        "1. Introduction\n",
        "2.3 Market size\n",
        "Section 4\n",
        "EXECUTIVE SUMMARY\n",
        "BOSS: what now?\n",
        "EXPERT 1: we should wait.\n",
        "Q: why?\nA: because.\n",
        "Interviewer: tell me more about it.\n",
        "```\n# not a heading\n```\n",
        "\n",
        "\n\n\n",
        "   \n",
        "word " * 30,
        "Sentence one. Sentence two! Sentence three? ",
        "x" * 500,
        "日本語の文章です。次の文。",
        "émigré naïve café — “quoted” ",
        "\t|a|b|\n|1|2|\n",
        "\r\n",
    ]
)


@given(
    text=st.one_of(st.text(max_size=400), st.lists(_BLOCKS, max_size=40).map("".join)),
    target=st.integers(min_value=1, max_value=60),
)
@settings(max_examples=400, deadline=None)
def test_spans_cover_any_text_exactly_once_in_order(text: str, target: int) -> None:
    spans = chunk_text(text, target_words=target)
    if not text:
        assert spans == []
        return
    _assert_exact_cover(text, spans)
    validate_spans(text, spans)
    assert all(len(span.summary) <= CHUNK_SUMMARY_CHARS for span in spans)


@pytest.mark.parametrize(
    "text", ["\n" * 5000, "x" * 30_000, "a " * 6000, "。" * 9000, " \n\t" * 3000]
)
def test_pathological_texts_are_still_cut_into_bounded_pieces(text: str) -> None:
    spans = chunk_text(text, target_words=50)
    _assert_exact_cover(text, spans)
    assert len(spans) > 1
    assert max(span.end - span.start for span in spans) <= 2 * 50 * 8 + 1


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("") == []


async def test_local_chunker_is_async_and_uses_its_target() -> None:
    text = "\n\n".join(_paragraph(100, seed) for seed in range(20))
    small = await LocalChunker(target_words=120).chunk(text)
    large = await LocalChunker().chunk(text)
    assert len(small) > len(large) > 1


def test_interview_transcript_chunks_start_at_speaker_turns() -> None:
    text = interview_transcript()
    assert 63_000 <= len(text) <= 67_000
    turns = turn_offsets(text)
    assert len(turns) == 24
    spans = chunk_text(text)
    _assert_exact_cover(text, spans)
    assert [span.start for span in spans] == turns  # one chunk per turn of ~450 words
    speakers = [text[turn : text.index(":", turn)] for turn in turns]
    for span, speaker in zip(spans, speakers, strict=True):
        assert span.title.startswith(f"{speaker}: ")


def test_long_turns_split_at_paragraphs_with_continuation_titles() -> None:
    text = interview_transcript(turns=6)  # ~1,900 words per turn: too long for one chunk
    turns = set(turn_offsets(text))
    spans = chunk_text(text, target_words=350)
    _assert_exact_cover(text, spans)
    starts = {span.start for span in spans}
    assert turns <= starts  # every turn starts a chunk
    for span in spans:
        assert span.start in turns or text[span.start - 2 : span.start] == "\n\n"
        assert _words(text[span.start : span.end]) <= 700
        if span.start not in turns:
            assert "(cont.)" in span.title
    assert len(spans) >= 4 * 6


def test_markdown_sections_become_chunks_titled_by_their_heading() -> None:
    sections = ["Market overview", "Pricing tiers", "Hiring plan"]
    text = "".join(f"# {title}\n\n{_paragraph(200, i)}\n\n" for i, title in enumerate(sections))
    spans = chunk_text(text, target_words=350)
    assert [span.title for span in spans] == sections  # never merged across a heading
    assert [text[span.start : span.start + 2] for span in spans] == ["# "] * 3


def test_tiny_sections_merge_with_their_neighbours() -> None:
    text = "".join(f"## Item {i}\n\n{_paragraph(15, i)}\n\n" for i in range(12))
    spans = chunk_text(text, target_words=100)
    _assert_exact_cover(text, spans)
    assert 2 <= len(spans) < 12
    assert all(text[span.start : span.start + 3] == "## " for span in spans)
    assert spans[0].title == "Item 0"


def test_oversized_section_splits_at_paragraphs_with_part_titles() -> None:
    body = "\n\n".join(_paragraph(120, seed) for seed in range(12))
    text = f"Annual review\n=============\n\n{body}\n"
    spans = chunk_text(text, target_words=300)
    _assert_exact_cover(text, spans)
    assert spans[0].title == "Annual review"
    assert spans[1].title == "Annual review (part 2)"
    for span in spans[1:]:
        assert text[span.start - 2 : span.start] == "\n\n"
    sizes = [_words(text[span.start : span.end]) for span in spans]
    assert all(0.4 * 300 <= size <= 2 * 300 for size in sizes)


def test_numbered_and_caps_headings_are_boundaries_but_lists_are_not() -> None:
    text = (
        f"1. Introduction\n\n{_paragraph(200, 1)}\n\n"
        f"2.1 Market Size\n\n{_paragraph(200, 2)}\n\n"
        f"FINANCIAL OUTLOOK\n\n{_paragraph(200, 3)}\n\n"
        "Steps we agreed:\n1. Ship the calculator\n2. Call churned customers\n"
    )
    spans = chunk_text(text, target_words=250)
    assert [span.title for span in spans] == [
        "1. Introduction",
        "2.1 Market Size",
        "FINANCIAL OUTLOOK",
    ]


def test_caps_speaker_lines_are_turns_not_headings() -> None:
    text = f"BOSS: OK\n\n{_paragraph(200, 1)}\n\nEXPERT 1:\n{_paragraph(200, 2)}\n"
    titles = [span.title for span in chunk_text(text, target_words=150)]
    assert len(titles) == 2
    assert titles[0].startswith("BOSS: ") and titles[1].startswith("EXPERT 1: ")


def test_a_short_preamble_joins_the_first_section_and_takes_its_title() -> None:
    text = f"Draft 3, shared with the board.\n\n# Intro\n\n{_paragraph(200, 4)}\n"
    spans = chunk_text(text, target_words=350)
    assert [(span.start, span.title) for span in spans] == [(0, "Intro")]


def test_code_comments_in_fences_are_not_headings() -> None:
    code = "```python\n# compute totals\nx = 1\n\n# and more\ny = 2\n```\n"
    text = f"# Script\n\n{_paragraph(40, 1)}\n\n{code}"
    assert [span.title for span in chunk_text(text, target_words=350)] == ["Script"]


def test_short_speaker_turns_are_packed_together() -> None:
    turns = [
        f"{'Interviewer' if i % 2 == 0 else 'Jane Doe'}: {_paragraph(40, i)}" for i in range(30)
    ]
    text = "\n".join(turns) + "\n"
    spans = chunk_text(text, target_words=200)
    _assert_exact_cover(text, spans)
    assert 4 <= len(spans) <= 10
    for span in spans:
        assert re.match(r"(Interviewer|Jane Doe): on ", span.title) or span.title.startswith(
            ("Interviewer:", "Jane Doe:")
        )
        assert text[span.start :].startswith(("Interviewer:", "Jane Doe:"))


def test_one_long_paragraph_splits_at_sentence_ends() -> None:
    text = _paragraph(2000, 7)
    spans = chunk_text(text, target_words=200)
    assert len(spans) >= 5
    for span in spans[:-1]:
        assert text[span.start : span.end].endswith(". ")


def test_validate_spans_rejects_gaps_overlaps_and_short_coverage() -> None:
    text = "abcdef"
    validate_spans(text, [ChunkSpan(0, 3, "a"), ChunkSpan(3, 6, "b")])
    validate_spans("", [])
    broken = [
        [ChunkSpan(0, 2, "a"), ChunkSpan(3, 6, "b")],
        [ChunkSpan(0, 4, "a"), ChunkSpan(3, 6, "b")],
        [ChunkSpan(0, 3, "a")],
        [ChunkSpan(1, 6, "a")],
        [ChunkSpan(0, 0, "a"), ChunkSpan(0, 6, "b")],
        [],
    ]
    for spans in broken:
        with pytest.raises(ValueError):
            validate_spans(text, spans)


def _sentences(summary: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", summary)


def test_each_transcript_chunk_gets_a_bounded_extractive_summary() -> None:
    text = interview_transcript()
    for span in chunk_text(text):
        chunk = " ".join(text[span.start : span.end].split())
        speaker = span.title.split(":", 1)[0]
        assert span.summary.startswith(f"{speaker}: ")  # attributed like the essence
        assert 40 <= len(span.summary) <= CHUNK_SUMMARY_CHARS
        spoken = span.summary.removeprefix(f"{speaker}: ")
        assert 2 <= len(_sentences(spoken)) <= 6
        for sentence in _sentences(spoken):
            assert sentence in chunk  # extractive: every sentence is the chunk's own


def test_section_summaries_come_from_their_own_section_without_the_heading() -> None:
    text = (
        "# Pricing\n\nWe decided to replace per-seat pricing with three usage tiers in 2021. "
        "The office plants were watered on Fridays.\n\n"
        "# Hiring\n\nWe will hire two senior engineers before any manager. "
        "The main risk is that burn outruns revenue, so we review it monthly.\n"
    )
    spans = chunk_text(text, target_words=20)
    assert [span.title for span in spans] == ["Pricing", "Hiring"]
    assert spans[0].summary == (
        "We decided to replace per-seat pricing with three usage tiers in 2021."
    )
    assert "hire two senior engineers" in spans[1].summary
    assert "#" not in spans[1].summary and "pricing" not in spans[1].summary


def test_a_summary_of_one_long_sentence_is_cut_at_a_word_boundary() -> None:
    sentence = "We decided that " + " and ".join(f"team {n} owns region {n}" for n in range(80))
    spans = chunk_text(sentence + ".", target_words=2000)
    assert len(spans) == 1
    summary = spans[0].summary
    assert len(summary) <= CHUNK_SUMMARY_CHARS and summary.endswith("…")
    kept = summary.removesuffix("…")
    assert sentence.startswith(kept) and sentence[len(kept)] == " "
