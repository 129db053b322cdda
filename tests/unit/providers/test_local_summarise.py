"""Local summariser: extractive section summaries and a file summary built from them (seed 003)."""

import re

import pytest

from shared.providers.local import LocalSummariser
from shared.providers.local.chunking import chunk_text
from shared.providers.local.summarise import file_summary
from shared.providers.local.summary import section_summary
from tests.fixtures.board_meeting import BOARD_MEETING
from tests.fixtures.transcripts import interview_transcript

# the bounds the design asks for, spelled out so that loosening the code's constants fails here
FILE_SUMMARY_CHARS = 1200
SECTION_SUMMARY_CHARS = 600
PRICING = (
    "Hi all, a quick note before we start. We sold per seat for four years and small teams "
    "hated it. After a long debate we decided to move to three usage tiers in 2021 because our "
    "largest customers wanted predictable bills. The office plants were watered on Fridays. "
    "The main risk is churn among teams between tiers, so we track downgrades weekly."
)
SECTIONS = [
    ("Market overview", "The mid-market analytics segment grew 14% in 2024 to $4.2B."),
    ("Pricing tiers", "We decided to replace per-seat pricing with three usage tiers."),
    ("Pricing risks", "Churn among teams between pricing tiers is the main risk."),
    ("Hiring plan", "We will hire two enterprise account executives before June."),
    ("European expansion", "A small Berlin office opens in Q3 with a budget of $300k."),
    ("Appendix", "Survey method and the list of interviewed customers."),
]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_section_summary_keeps_the_key_sentences_and_leaves_out_the_noise() -> None:
    summary = section_summary(PRICING, "Pricing tiers")
    assert "we decided to move to three usage tiers in 2021" in summary
    assert "plants" not in summary and "Hi all" not in summary
    assert len(summary) <= SECTION_SUMMARY_CHARS
    for sentence in re.split(r"(?<=[.!?])\s+", summary):
        assert sentence in _flat(PRICING)  # extractive: nothing is made up


def test_section_summary_of_one_long_sentence_is_cut_at_a_word_boundary() -> None:
    text = "We decided that " + " and ".join(f"region {n} gets a partner" for n in range(60))
    summary = section_summary(text + ".", "Regions")
    assert len(summary) <= SECTION_SUMMARY_CHARS and summary.endswith("…")
    kept = summary.removesuffix("…")
    assert text.startswith(kept) and text[len(kept)] == " "


def test_file_summary_opens_with_what_the_document_is() -> None:
    summary = file_summary("strategy.md", SECTIONS)
    assert summary.splitlines()[0] == "strategy.md: a document, “Market overview”."
    meeting = [("Board meeting — March 2025", "We decided to raise a seed extension.")]
    assert file_summary("board-2025-03.md", meeting).splitlines()[0] == (
        "board-2025-03.md: meeting notes, “Board meeting — March 2025”."
    )
    assert file_summary("hiring-plan.md", SECTIONS).startswith("hiring-plan.md: a plan, ")
    assert "sections on" not in summary  # not a table of contents


def _points(summary: str) -> list[str]:
    """The summary's points, its headings and blank lines left out."""
    return [line.removeprefix("- ") for line in summary.splitlines()[1:] if line.startswith("- ")]


def _group(summary: str, heading: str) -> list[str]:
    """The points under `### heading`."""
    blocks = summary.split("\n\n")
    found = [b for b in blocks if b.startswith(f"### {heading}\n")]
    return [line.removeprefix("- ") for line in found[0].splitlines()[1:]] if found else []


def test_file_summary_quotes_the_telling_sentences_by_group_in_order() -> None:
    summary = file_summary("strategy.md", SECTIONS)
    assert len(summary) <= FILE_SUMMARY_CHARS
    sentences = [s for _, s in SECTIONS]
    assert all(point in sentences for point in _points(summary))  # verbatim
    assert _group(summary, "Decisions") == [SECTIONS[1][1]]
    assert _group(summary, "Figures") == [SECTIONS[0][1], SECTIONS[4][1]]  # document order
    assert _group(summary, "Dates and deadlines") == [SECTIONS[3][1]]
    assert "Survey method" not in summary  # says nothing a reader acts on


def _board_summaries(target_words: int) -> list[tuple[str, str]]:
    return [
        (span.title, section_summary(BOARD_MEETING[span.start : span.end], span.title))
        for span in chunk_text(BOARD_MEETING, target_words)
    ]


@pytest.mark.parametrize("target_words", [350, 40])  # one section, or one per heading
def test_a_board_meeting_summary_carries_runway_fundraising_owner_and_date(
    target_words: int,
) -> None:
    sections = _board_summaries(target_words)
    texts = [BOARD_MEETING[s.start : s.end] for s in chunk_text(BOARD_MEETING, target_words)]
    summary = file_summary("board-meeting-2025-03.md", sections, texts)
    lines = summary.splitlines()
    assert lines[0] == "board-meeting-2025-03.md: meeting notes, “Board meeting — March 2025”."
    assert len(summary) <= FILE_SUMMARY_CHARS
    assert [line for line in lines if line.startswith("### ")] == [
        "### Decisions",
        "### Figures",
        "### Actions and owners",
        "### Dates and deadlines",
    ]
    [decision] = _group(summary, "Decisions")
    assert "we decided to raise a $3M seed extension" in decision
    assert any("our runway is 14 months" in point for point in _group(summary, "Figures"))
    assert "Tom will prepare the data room by April 15." in _group(summary, "Actions and owners")
    assert "The next board meeting is on June 12, 2025." in _group(summary, "Dates and deadlines")
    for aside in ("coffee", "painted blue", "Lena thought", "Everyone agreed"):
        assert aside not in summary
    flat = _flat(BOARD_MEETING)
    for point in _points(summary):
        assert point in flat  # every point is the document's own sentence


def test_a_section_summary_keeps_decisions_figures_owners_and_dates_in_order() -> None:
    summary = section_summary(BOARD_MEETING, "Board meeting — March 2025")
    assert len(summary) <= SECTION_SUMMARY_CHARS
    kept = [
        "Revenue for February was $182k",
        "our runway is 14 months",
        "we decided to raise a $3M seed extension",
        "Tom will prepare the data room by April 15.",
    ]
    positions = [summary.index(part) for part in kept]
    assert positions == sorted(positions)  # document order
    assert "coffee" not in summary and "painted blue" not in summary


def test_transcript_summary_is_bounded_and_covers_several_topics() -> None:
    text = interview_transcript()
    sections = [
        (span.title, section_summary(text[span.start : span.end], span.title))
        for span in chunk_text(text)
    ]
    summary = file_summary("ACD179.md", sections)
    assert len(summary) <= FILE_SUMMARY_CHARS
    assert summary.startswith("ACD179.md: a transcript.")
    points = _points(summary)
    assert 5 <= len(points) <= 16
    assert len(set(points)) == len(points)
    assert all(point.startswith(("EXPERT", "BOSS")) for point in points)  # attributed
    # "… improved by 3% once we decided to …" reports a figure: the decision is the clause's
    assert not any("once we decided" in point for point in _group(summary, "Decisions"))
    topics = ("pricing", "enterprise", "onboarding", "hir", "berlin", "reporting")
    assert sum(topic in summary.lower() for topic in topics) >= 4


def test_file_summary_of_many_sections_still_fits() -> None:
    sections = [
        (f"Region {n}", f"We decided to open office {n} with {n} staff.") for n in range(300)
    ]
    summary = file_summary("regions.txt", sections)
    assert len(summary) <= FILE_SUMMARY_CHARS
    assert summary == file_summary("regions.txt", sections)  # deterministic


def test_file_summary_of_nothing_says_so() -> None:
    assert (
        file_summary("empty.txt", []) == "empty.txt: an empty document with nothing to summarise."
    )
    assert file_summary("blank.txt", [("", "  ")]).startswith("blank.txt: ")


async def test_local_summariser_implements_the_interface() -> None:
    summariser = LocalSummariser()
    assert await summariser.summarise_section(PRICING, "Pricing") == section_summary(
        PRICING, "Pricing"
    )
    assert await summariser.summarise_file("s.md", SECTIONS) == file_summary("s.md", SECTIONS)
