"""The extractive meeting summary: decisions, action items with owners and dates, open
questions, each quoting the line it came from; small talk stays out."""

import uuid

from services.chat.tools.documents import document_items, render_markdown
from services.chat.tools.meeting import Passage, meeting_date, summarise_meeting
from tests.fixtures.founder_note import ACTION_ITEMS, DECISIONS, FOUNDER_NOTE
from tests.fixtures.meeting_transcript import EXPECTED_ITEMS, STANDUP_TRANSCRIPT


def _passages(text: str, pieces: int = 2) -> list[Passage]:
    """The transcript cut at a line boundary into chunks, as the chunker stores them."""
    lines = text.splitlines(keepends=True)
    cut = len(lines) // pieces
    first, second = "".join(lines[:cut]), "".join(lines[cut:])
    return [
        Passage(uuid.uuid4(), first, 1, 0),
        Passage(uuid.uuid4(), second, cut + 1, len(first)),
    ]


def test_every_expected_item_is_found_in_its_section_with_owner_and_date() -> None:
    summary = summarise_meeting(_passages(STANDUP_TRANSCRIPT))
    found = [(i.section, i.text, i.owner, i.due) for i in summary.items]
    assert len(found) == len(EXPECTED_ITEMS), found
    for (section, words, owner, due), (got_section, text, got_owner, got_due) in zip(
        EXPECTED_ITEMS, found, strict=True
    ):
        assert (section, owner, due) == (got_section, got_owner, got_due), text
        assert words in text


def test_each_item_quotes_its_passage_exactly_with_the_right_line() -> None:
    passages = _passages(STANDUP_TRANSCRIPT)
    by_id = {p.chunk_id: p for p in passages}
    lines = STANDUP_TRANSCRIPT.splitlines()
    for item in summarise_meeting(passages).items:
        passage = by_id[item.chunk_id]
        assert item.quote in passage.text
        assert STANDUP_TRANSCRIPT[item.char_start : item.char_end] == item.quote
        assert lines[item.line - 1] == item.quote


def test_small_talk_is_left_out() -> None:
    texts = " ".join(i.quote for i in summarise_meeting(_passages(STANDUP_TRANSCRIPT)).items)
    assert "coffee" not in texts and "see you next week" not in texts
    assert "Sure, I can do that" not in texts


def test_items_are_numbered_one_to_n_and_the_markdown_cites_each() -> None:
    file_id = uuid.uuid4()
    passages = _passages(STANDUP_TRANSCRIPT)
    items = document_items(summarise_meeting(passages), file_id=file_id, filename="sync.txt")
    assert [i["citation"]["ref"] for i in items] == list(range(1, len(items) + 1))
    assert all(i["citation"]["chunk_id"] and i["citation"]["snippet"] for i in items)
    body = render_markdown("Sync", "sync.txt", meeting_date(passages), items)
    assert body.startswith("# Sync\n") and "meeting of 2026-03-02" in body
    for heading in ("## Decisions", "## Action items", "## Open questions", "## Sources"):
        assert heading in body
    for ref in range(1, len(items) + 1):
        assert f"[Ref: {ref}]" in body and f"\n{ref}. sync.txt, line " in body
    assert "(owner: Chloe; due: 2026-03-15)" in body


def test_a_text_with_nothing_to_summarise_gives_no_items() -> None:
    passage = Passage(uuid.uuid4(), "The offices were painted blue. Lunch was good.", 1)
    assert summarise_meeting([passage]).items == []


def test_a_notes_sections_are_its_summary_and_a_figure_is_no_decision() -> None:
    """Meeting notes, not only transcripts: each item under `## Decisions` or `## Action items`
    is one, with the owner at its head and its date; the figures are nothing of the kind."""
    summary = summarise_meeting([Passage(uuid.uuid4(), FOUNDER_NOTE, 1)])
    assert [i.text for i in summary.section("decisions")] == DECISIONS
    actions = [(i.text, i.owner, i.due) for i in summary.section("action_items")]
    assert actions == ACTION_ITEMS
    assert not summary.section("open_questions")
    assert all(FOUNDER_NOTE.count(item.quote) == 1 for item in summary.items)


def test_a_notes_colon_headings_open_its_lists_and_a_figure_is_no_decision() -> None:
    """ "Decisions:" on a line of its own opens the list (it raised a TypeError); a figure line in
    a transcript is no decision, even beside "decided"."""
    note = (
        "Sync notes\n\nDecisions:\n- We move pricing to usage tiers from April.\n\n"
        "Action items:\n- Ben migrates billing by March 20.\n"
    )
    said = "Anna: Revenue grew 12% once we decided to drop the free tier.\n"
    summary = summarise_meeting([Passage(uuid.uuid4(), said, 1), Passage(uuid.uuid4(), note, 2)])
    found = [(item.section, item.text, item.owner) for item in summary.items]
    assert found == [
        ("decisions", "We move pricing to usage tiers from April.", None),
        ("action_items", "Ben migrates billing by March 20.", "Ben"),
    ]
