"""Offline answers worth reading, through the real system: a board meeting's summary carries
its figures, decisions, owners and dates; a price is cited for the competitor the question
names; advice is answered with the records, said to be the records."""

import httpx
import pytest

from shared.personas import get_persona
from shared.text.citations import split_claims
from tests.conftest import ClientFactory
from tests.fixtures.board_meeting import BOARD_MEETING
from tests.fixtures.founder_note import ACTION_ITEMS, DECISIONS, FOUNDER_NOTE
from tests.integration.test_chat import assert_citations_resolve, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
BOARD_FILE = "board-meeting-2025-03.md"


async def test_a_board_meeting_is_summarised_by_its_figures_decisions_owners_and_dates(
    api_client: httpx.AsyncClient,
) -> None:
    board = await ready_file(api_client, BOARD_FILE, BOARD_MEETING)
    summary = board["summary"]
    assert summary.startswith(f"{BOARD_FILE}: meeting notes, “Board meeting — March 2025”.")
    for said in (
        "our runway is 14 months",
        "we decided to raise a $3M seed extension",
        "Tom will prepare the data room by April 15.",
    ):
        assert said in summary, summary
    assert "sections on" not in summary

    question = "Summarise this document"
    _, done = await chat(api_client, persona="vlad", message=question, attachments=[board["id"]])
    assert not done["refused"], done
    opening, body = done["answer"].split("\n\n")
    assert opening == get_persona("vlad").opening("summary", question)
    assert "our runway is 14 months" in body and "$3M seed extension" in body
    await assert_citations_resolve(api_client, done["citations"])


async def test_a_price_is_cited_for_the_competitor_named_never_its_neighbour(
    api_client: httpx.AsyncClient,
) -> None:
    await ready_file(api_client, BOARD_FILE, BOARD_MEETING)
    _, done = await chat(api_client, persona="vlad", message="What does Competitor B charge?")
    assert not done["refused"], done
    said = [claim.statement for claim in split_claims(done["answer"]) if claim.refs]
    assert said == ["Competitor B charges $99 per seat."], done["answer"]
    assert [c["snippet"] for c in done["citations"]] == ["Competitor B charges $99 per seat."]
    await assert_citations_resolve(api_client, done["citations"])

    _, done = await chat(api_client, persona="vlad", message="What does Acme charge per seat?")
    assert done["refused"] or "$" not in done["answer"], done["answer"]
    assert "Competitor" not in done["answer"]


async def test_an_advice_question_gets_the_decisions_on_record_framed_as_records(
    api_client: httpx.AsyncClient,
) -> None:
    await ready_file(api_client, BOARD_FILE, BOARD_MEETING)
    question = "What should we do about fundraising?"
    _, done = await chat(api_client, persona="gunnar", message=question)
    assert not done["refused"], done
    opening, body = done["answer"].split("\n\n")
    assert opening == get_persona("gunnar").opening("advice", question)
    assert "we decided to raise a $3M seed extension" in body
    assert "Straight to it - here is what your records say." not in done["answer"]

    _, done = await chat(
        api_client, persona="gunnar", message="Do you think we should open an office in Tokyo?"
    )
    assert done["refused"] and not done["citations"], done


async def test_a_founders_meeting_note_answers_its_decisions_action_items_and_summary(
    make_client: ClientFactory,
) -> None:
    """Issue 28's trial, offline: the note's decisions and action items are what the questions
    that ask for them get, and "Summarise this meeting" on the note makes its summary."""
    client = await make_client()
    note = await ready_file(client, "leadership-sync.md", FOUNDER_NOTE)
    # the file's stored summary leads with them, under their headings; a figure is a figure
    shown = (await client.get(f"/v1/files/{note['id']}")).json()["summary"]
    opening, decisions, figures, actions = shown.split("\n\n")
    assert opening == "leadership-sync.md: meeting notes, “Leadership sync, 2026-03-02”."
    assert decisions == "\n".join(["### Decisions", *(f"- {d}" for d in DECISIONS)])
    assert (
        figures == "### Figures\n- Gross margin was 71% in Q2.\n- Net revenue retention was 104%."
    )
    assert actions == "\n".join(
        ["### Actions and owners", *(f"- {item}" for item, _, _ in ACTION_ITEMS)]
    )
    _, decided = await chat(
        client, persona="gunnar", message="Which decisions did we take at the leadership sync?"
    )
    for decision in DECISIONS:
        assert decision in decided["answer"], decided
    _, actions = await chat(client, persona="gunnar", message="List the action items")
    for item, _, _ in ACTION_ITEMS:
        assert item in actions["answer"], actions
    await assert_citations_resolve(client, decided["citations"] + actions["citations"])

    _, summarised = await chat(
        client, persona="gunnar", message="Summarise this meeting", attachments=[note["id"]]
    )
    assert not summarised["refused"], summarised
    [document] = (await client.get("/v1/documents")).json()["items"]
    opened = (await client.get(f"/v1/documents/{document['id']}")).json()
    sections = [(item["section"], item["text"]) for item in opened["items"]]
    assert sections == [("decisions", d) for d in DECISIONS] + [
        ("action_items", item) for item, _, _ in ACTION_ITEMS
    ]
