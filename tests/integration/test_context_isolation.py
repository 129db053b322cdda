"""What reaches a persona's context, through the real bus and pipeline: another persona's
instruction never does (as a turn, a journal entry or a memory fact)."""

import asyncpg
import httpx
import pytest

from shared.db.turns import NewTurn
from tests.helpers import import_turns, park_turn, wait_journaled
from tests.integration.test_context import all_ids, preview, section

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_preference_told_to_one_persona_is_no_fact_for_the_others(
    api_client: httpx.AsyncClient,
) -> None:
    message = "I am the CFO of Borealis. Vlad, I prefer you never use sports analogies."
    turn = {"persona": "vlad", "user_message": message, "ai_response": "Understood."}
    [record] = await import_turns(api_client, [turn])
    await wait_journaled(api_client, [record["id"]])

    gunnar = await preview(api_client, "gunnar", "How should we price the new plan?")
    assert "sports analogies" not in str(gunnar["sections"])
    assert "CFO of Borealis" in str(section(gunnar, "memory"))  # the other sentence is a fact
    vlad = await preview(api_client, "vlad", "How should we price the new plan?")
    assert record["id"] in all_ids(vlad)  # P1 holds it while recent, then P3
    assert "sports analogies" in str(vlad["sections"])
    facts = (await api_client.get("/v1/memory")).json()["items"]
    assert sorted(f["fact"] for f in facts) == [  # newest first: one turn's facts tie on time
        "The user is the CFO of Borealis.",
        "The user's company is called Borealis.",
    ]


async def test_a_turn_not_yet_journaled_is_seen_only_by_its_own_persona(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """Until its cut says whose instruction it is (or forever, if journaling fails)."""
    user_id = api_client.user_id  # type: ignore[attr-defined]
    message = "Vlad, never use sports analogies."
    turn = NewTurn(user_id=user_id, persona_name="vlad", user_message=message, ai_response="OK.")
    row = await park_turn(db, turn)  # stored, not yet journaled: no journal row

    gunnar = await preview(api_client, "gunnar", "Any advice on pricing?")
    assert str(row["id"]) not in all_ids(gunnar)
    assert "sports analogies" not in str(gunnar["sections"])
    vlad = await preview(api_client, "vlad", "Any advice on pricing?")
    assert [i["id"] for i in section(vlad, "recent_turns")] == [str(row["id"])]
