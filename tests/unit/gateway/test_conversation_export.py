"""A conversation as Markdown, and its default title: pure functions, no database."""

from datetime import UTC, datetime, timedelta, timezone

from services.gateway.conversations.export import (
    conversation_markdown,
    export_filename,
    numbered,
    source_line,
)
from shared.db.conversations import title_from

T0 = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
PASSAGE = {
    "ref": 7,
    "file_id": "f1",
    "filename": "pricing.md",
    "title": "Pricing decision",
    "line_start": 1,
    "line_end": 19,
    "snippet": "We moved to usage tiers.",
}
FACT = {"ref": 3, "fact_id": "m1", "title": "About you", "snippet": "The user's name is Maya."}
TURN = {"ref": 12, "turn_id": "t1", "title": "Chose usage tiers", "snippet": "Usage tiers."}


def test_a_title_is_the_first_question_on_one_line_shortened_at_a_word() -> None:
    assert title_from("What is our\n  runway?") == "What is our runway?"
    long = title_from("How should we price the Pro plan for teams of more than fifty people?")
    assert long == "How should we price the Pro plan for teams of more than…"
    assert len(long) <= 60


def test_the_file_name_is_the_title_in_ascii_and_the_day_it_started() -> None:
    assert export_filename("Pro plan: pricing (v2)!", T0) == "pro-plan-pricing-v2-2026-11-25.md"
    assert export_filename("Café über alles", T0) == "cafe-uber-alles-2026-11-25.md"
    assert export_filename("会议", T0) == "conversation-2026-11-25.md"
    late = datetime(2026, 11, 25, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert export_filename("x", late).endswith("2026-11-26.md")  # the day in UTC
    assert '"' not in export_filename('say "hi"', T0)


def test_refs_are_renumbered_from_one_in_order_of_first_mention() -> None:
    answer = "Tiers. [Ref: 12] Since March. [Ref: 7] [Ref: 12] Unknown. [Ref: 99]"
    text, sources = numbered(answer, [PASSAGE, FACT, TURN])
    assert text == "Tiers. [1] Since March. [2] [1] Unknown. [Ref: 99]"
    assert [s["ref"] for s in sources] == [12, 7, 3]  # a source not mentioned comes last


def test_each_kind_of_source_reads_as_the_web_client_lists_it() -> None:
    assert source_line(PASSAGE) == (
        "pricing.md — Pricing decision, lines 1–19: “We moved to usage tiers.”"
    )
    assert source_line(FACT) == "Memory — About you: “The user's name is Maya.”"
    assert source_line(TURN) == "Past conversation — Chose usage tiers: “Usage tiers.”"


def test_the_markdown_holds_every_turn_with_persona_time_question_answer_and_sources() -> None:
    conversation = {"persona_name": "gunnar", "created_at": T0}
    turns = [
        {
            "persona_name": "gunnar",
            "user_message": "Why usage tiers?",
            "ai_response": "Predictable bills. [Ref: 7]",
            "citations": '[{"ref": 7, "file_id": "f1", "filename": "pricing.md",'
            ' "title": "", "snippet": "Predictable bills."}]',
            "is_starred": True,
            "created_at": T0,
        },
        {
            "persona_name": "vlad",
            "user_message": "And the price?",
            "ai_response": "I can't find that.",
            "citations": [],
            "is_starred": False,
            "created_at": T0 + timedelta(minutes=5),
        },
    ]
    markdown = conversation_markdown(conversation, "Tiers", turns)
    assert markdown.startswith("# Tiers\n\n- Persona: Gunnar\n- Started: 2026-11-25 09:30 UTC\n")
    assert "- Last turn: 2026-11-25 09:35 UTC\n- Turns: 2\n" in markdown
    assert "## 1 · 2026-11-25 09:30 UTC · starred\n\n**You:** Why usage tiers?\n" in markdown
    assert (
        "**Gunnar:** Predictable bills. [1]\n\nSources:\n\n1. pricing.md: “Predictable" in markdown
    )
    assert "1. pricing.md: “Predictable bills.”" in markdown
    assert "## 2 · 2026-11-25 09:35 UTC\n\n**You:** And the price?\n\n**Vlad:** I can't" in markdown
    assert markdown.endswith("I can't find that.\n")
