"""A file's offline summary leads with its decisions, figures, owners and dates (issue 28, part
5), each under its heading, read from the sections' text — and never calls a figure a decision."""

import gzip
import json
from pathlib import Path

import pytest

from services.extractor.extract import extract_text
from shared.providers.local.chunking import chunk_text
from shared.providers.local.summarise import FILE_SUMMARY_CHARS, file_summary
from tests.fixtures.documents import STRATEGY_MEMO, csv
from tests.fixtures.founder_note import ACTION_ITEMS, DECISIONS, FOUNDER_NOTE
from tests.fixtures.meeting_transcript import STANDUP_TRANSCRIPT
from tests.unit.text.linear_time import assert_linear

SCIFACT = Path("/work/shared/data/scifact/corpus.jsonl.gz")
FIGURES_ONLY = """# Q2 metrics

Revenue grew 12% to $4.1M in Q2. Gross margin was 71%. Net revenue retention was 104%.
The team met on Tuesday to go through the numbers and everyone agreed they looked healthy.
"""
MEMO_DECIDING_A_FIGURE = """# Pricing memo

Small teams hated per-seat pricing and our largest customers wanted predictable bills.
After two pricing reviews we decided to raise the starter plan to $49 per month from May.
Revenue grew 12% last quarter once we decided to drop the freemium tier.
Maria — ship the pricing page by Friday.
"""
DECISIONS_LIST_WITH_A_FIGURE = """# Offsite notes

## Decisions
- We open a Berlin office in Q3.
- Revenue grew 12% in Q2.
"""
PROSE = """# The history of the office

The office sits on a quiet street near the river. It was built as a warehouse and later
turned into studios for painters. The tenants share a garden and a small kitchen.
"""


def summary_of(filename: str, text: str) -> str:
    """The file's summary as the pipeline makes it: from its chunks' summaries and texts."""
    spans = chunk_text(text)
    sections = [(span.title, span.summary) for span in spans]
    return file_summary(filename, sections, [text[s.start : s.end] for s in spans])


def group(summary: str, heading: str) -> list[str]:
    """The points under `### heading`, [] when it has none."""
    for block in summary.split("\n\n"):
        if block.startswith(f"### {heading}\n"):
            return [line.removeprefix("- ") for line in block.splitlines()[1:]]
    return []


def headings(summary: str) -> list[str]:
    return [line.removeprefix("### ") for line in summary.splitlines() if line.startswith("### ")]


def test_a_founders_note_leads_with_its_decisions_figures_and_owners() -> None:
    summary = summary_of("leadership-sync.md", FOUNDER_NOTE)
    assert summary.startswith("leadership-sync.md: meeting notes, “Leadership sync, 2026-03-02”.")
    assert headings(summary) == ["Decisions", "Figures", "Actions and owners"]
    assert group(summary, "Decisions") == DECISIONS
    assert group(summary, "Figures") == [
        "Gross margin was 71% in Q2.",
        "Net revenue retention was 104%.",
    ]
    assert group(summary, "Actions and owners") == [item for item, _, _ in ACTION_ITEMS]
    assert "Attendees" not in summary


def test_a_note_of_figures_without_decisions_has_no_decisions_heading() -> None:
    summary = summary_of("q2-metrics.md", FIGURES_ONLY)
    assert "Decisions" not in headings(summary)
    figures = group(summary, "Figures")
    assert figures[:3] == [
        "Revenue grew 12% to $4.1M in Q2.",
        "Gross margin was 71%.",
        "Net revenue retention was 104%.",
    ]
    assert "everyone agreed they looked healthy" not in " ".join(group(summary, "Decisions"))


def test_a_decision_that_carries_a_figure_is_a_decision_and_a_figure_beside_one_is_not() -> None:
    summary = summary_of("pricing-memo.md", MEMO_DECIDING_A_FIGURE)
    assert group(summary, "Decisions") == [
        "After two pricing reviews we decided to raise the starter plan to $49 per month from May."
    ]
    assert group(summary, "Figures") == [
        "Revenue grew 12% last quarter once we decided to drop the freemium tier."
    ]
    assert group(summary, "Actions and owners") == ["Maria — ship the pricing page by Friday."]


def test_a_figure_in_a_decisions_list_is_still_a_figure() -> None:
    summary = summary_of("offsite.md", DECISIONS_LIST_WITH_A_FIGURE)
    assert group(summary, "Decisions") == ["We open a Berlin office in Q3."]
    assert group(summary, "Figures") == ["Revenue grew 12% in Q2."]


def test_a_memos_next_steps_are_its_actions() -> None:
    summary = summary_of("pricing-decision.md", STRATEGY_MEMO)
    assert headings(summary)[0] == "Decisions"
    assert group(summary, "Actions and owners") == [
        "Ship the tier calculator by March.",
        "Interview ten churned customers and report back.",
    ]


def test_a_transcript_names_who_decided_and_who_does_what() -> None:
    summary = summary_of("weekly-sync.txt", STANDUP_TRANSCRIPT)
    assert group(summary, "Decisions") == [
        "Anna: After the discussion we decided to move the starter plan to usage tiers from April.",
        "Chloe: We agreed to drop the dark-mode redesign from this release.",
    ]
    actions = group(summary, "Actions and owners")
    assert "Ben: I'll migrate the billing service to the new tiers by March 20." in actions
    assert "coffee" not in summary and "see you next week" not in summary


def test_a_spreadsheets_rows_are_its_figures() -> None:
    text = extract_text(csv().encode(), "revenue.csv")  # "Region: EMEA | Q1 2024: 4.2M | …"
    summary = summary_of("revenue.csv", text)
    assert headings(summary) == ["Figures"]
    assert group(summary, "Figures") == text.strip().splitlines()


@pytest.mark.skipif(not SCIFACT.exists(), reason="SciFact data not present")
def test_a_scientific_abstract_keeps_a_sensible_bounded_summary() -> None:
    with gzip.open(SCIFACT, "rt") as lines:
        abstracts = [json.loads(line) for _, line in zip(range(20), lines, strict=False)]
    for abstract in abstracts:
        text = f"{abstract['title']}\n\n{abstract['text']}"
        summary = summary_of(f"{abstract['_id']}.txt", text)
        assert len(summary) <= FILE_SUMMARY_CHARS
        assert "Decisions" not in headings(summary), summary  # an abstract decides nothing
        assert all(line or i for i, line in enumerate(summary.splitlines()))
        for heading in headings(summary):
            assert group(summary, heading), summary  # no empty heading


def test_text_with_no_decision_figure_owner_or_date_keeps_its_plain_points() -> None:
    summary = summary_of("office.md", PROSE)
    assert headings(summary) == []
    lines = summary.splitlines()
    assert lines[0] == "office.md: a document, “The history of the office”."
    assert len(lines) >= 2 and all(line.startswith("- ") for line in lines[1:])


def test_a_long_list_of_decisions_leaves_room_for_the_rest_and_fits_the_cap() -> None:
    decided = "\n".join(f"- We decided to open office number {n} in town {n}." for n in range(400))
    text = (
        f"# Plan\n\n## Decisions\n{decided}\n\n## Figures\nRevenue was $9M in Q2.\n\n"
        "## Action items\n- Ann to hire the first 40 staff by May 3.\n"
    )
    summary = summary_of("plan.md", text)
    assert len(summary) <= FILE_SUMMARY_CHARS
    assert headings(summary)[:3] == ["Decisions", "Figures", "Actions and owners"]
    assert 1 <= len(group(summary, "Decisions")) <= 5
    assert summary == summary_of("plan.md", text)  # deterministic


def test_the_file_summary_is_linear_in_the_text() -> None:
    def make(n: int) -> str:
        return "## Decisions\n" + "".join(
            f"- We decided to move plan {i} to tier {i} by May {i % 28 + 1}.\n"
            f"Revenue {i} was ${i}k. Tom{chr(97 + i % 26)} will ship it.\n"
            for i in range(n)
        )

    assert_linear(lambda text: summary_of("big.md", text), make, 300)
    # a line of labels that never becomes a table row is read once, not once per colon
    assert_linear(lambda text: summary_of("row.csv", text), lambda n: "a:" * n + " b", 20_000)
