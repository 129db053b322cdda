"""Each answer's citations are numbered 1…n in order of first mention, through the running
system: in the streamed tokens, the `done` answer, its citations and the stored turn; and a turn
stored before that (global context ranks) is numbered from 1 when read."""

import re
import uuid

import asyncpg
import httpx
import pytest

from shared.db.turns import NewTurn
from tests.helpers import park_turn
from tests.integration.test_chat import PRICING_MEMO, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
MARKER = re.compile(r"\[Ref: (\d+)\]")


def mentioned(text: str) -> list[int]:
    return list(dict.fromkeys(int(n) for n in MARKER.findall(text)))


async def test_every_answer_numbers_its_citations_from_one(api_client: httpx.AsyncClient) -> None:
    await ready_file(api_client, "pricing.md", PRICING_MEMO)
    # earlier turns enter the context first and take its low ranks: the file's passages then
    # rank higher there, and the answer must still cite them as 1, 2, …
    for question in ("Why did we move to usage tiers?", "What did customers ask for?"):
        await chat(api_client, persona="vlad", message=question)
    tokens, done = await chat(api_client, persona="vlad", message="Why usage tiers again?")

    refs = [citation["ref"] for citation in done["citations"]]
    assert refs and refs == list(range(1, len(refs) + 1))
    assert mentioned(done["answer"]) == refs  # first mention order, no marker without a source
    assert set(mentioned("".join(tokens))) <= set(refs)  # the draft streamed numbered alike
    stored = (await api_client.get(f"/v1/turns/{done['turn_id']}")).json()
    assert stored["ai_response"] == done["answer"]
    assert [c["ref"] for c in stored["citations"]] == refs
    listed = (await api_client.get("/v1/turns?limit=1")).json()["items"][0]
    assert listed["citations"] == stored["citations"]
    assert stored["context_sections"] == done["sections"]  # the Context expander's source


async def test_a_turn_stored_with_global_ranks_reads_from_one(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """As turns were stored before: the context's ranks 57 and 3 in the answer and citations."""
    turn = NewTurn(
        id=uuid.uuid4(),
        user_id=api_client.user_id,  # type: ignore[attr-defined]
        persona_name="vlad",
        user_message="Why usage tiers?",
        ai_response="Bills are predictable. [Ref: 57] Seats went away. [Ref: 3] [Ref: 57]",
        citations=[{"ref": 3, "title": "Seats"}, {"ref": 57, "title": "Bills"}],
        context_sections=[{"name": "files", "tokens": 120}],
    )
    await park_turn(db, turn)
    stored = (await api_client.get(f"/v1/turns/{turn.id}")).json()
    assert stored["ai_response"] == (
        "Bills are predictable. [Ref: 1] Seats went away. [Ref: 2] [Ref: 1]"
    )
    assert stored["citations"] == [{"ref": 1, "title": "Bills"}, {"ref": 2, "title": "Seats"}]
    assert stored["context_sections"] == [{"name": "files", "tokens": 120}]
    row = await db.fetchrow("SELECT ai_response FROM superjournal WHERE id = $1", turn.id)
    assert row["ai_response"] == turn.ai_response  # renumbered as read, the row as it was
