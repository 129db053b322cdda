"""What reaches a persona's context, through the real bus and pipeline: another persona's
instruction never does (as a turn, a journal entry or a memory fact)."""

import httpx
import pytest

from tests.helpers import import_turns, wait_journaled
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
    assert [f["fact"] for f in facts] == ["The user is the CFO of Borealis."]
