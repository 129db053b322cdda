"""Answers from past conversations through the real system: a journal source is quoted from
what its cut says (the essences), never from the header it is rendered under."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from shared.text.citations import split_claims
from tests.helpers import import_turns, wait_journaled
from tests.integration.test_chat import chat

pytestmark = pytest.mark.asyncio(loop_scope="session")

START = datetime(2025, 3, 2, 10, 0, tzinfo=UTC)
BERLIN = {
    "persona": "kirby",
    "user_message": "We agreed to open the Berlin office in May with two sales hires.",
    "ai_response": (
        "Here's what I found in your material.\n\n"
        "Opening the Berlin office in May gives the sales team a base near our German "
        "customers. [Ref: 1]"
    ),
}
LATER = [f"Turn {n}: the newsletter went out to {100 + n} readers this week." for n in range(5)]


def flat(text: str) -> str:
    return " ".join(text.split())


async def test_a_journal_answer_quotes_the_turns_words_not_its_header(
    api_client: httpx.AsyncClient,
) -> None:
    turns = [BERLIN] + [
        {"persona": "kirby", "user_message": message, "ai_response": "Noted, thanks."}
        for message in LATER  # the five recent turns (P1): the Berlin turn enters as its cut
    ]
    for index, turn in enumerate(turns):
        turn["created_at"] = (START + timedelta(minutes=index)).isoformat()
    records = await import_turns(api_client, turns)
    await wait_journaled(api_client, [r["id"] for r in records])
    journal = (await api_client.get("/v1/journal", params={"limit": 10})).json()["items"]
    entry = next(e for e in journal if e["turn_id"] == records[0]["id"])
    said = [flat(BERLIN["user_message"]), flat(BERLIN["ai_response"])]  # an imported turn's words

    _, done = await chat(
        api_client, persona="kirby", message="What did we decide about the Berlin office?"
    )
    assert not done["refused"], done
    [citation] = [c for c in done["citations"] if c["turn_id"] == records[0]["id"]]
    assert "Arc:" not in done["answer"] and "2025-03-02" not in done["answer"], done["answer"]
    quoted = [c for c in split_claims(done["answer"]) if citation["ref"] in c.refs]
    assert quoted, done["answer"]
    for claim in quoted:
        assert claim.refs == (citation["ref"],), done["answer"]  # no old marker came along
        assert any(flat(claim.statement) in words for words in said), claim.statement
    snippet = citation["snippet"]
    assert snippet in entry["boss_essence"] or snippet in entry["persona_essence"]
