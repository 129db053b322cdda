"""P5 recall from the whole journal, through the real bus and database: an old turn comes back
by what it says, and by the time the question names, with its date and its own words."""

from typing import Any

import httpx
import pytest

from tests.helpers import import_turns, wait_journaled
from tests.integration.test_context import conversation, preview, section

pytestmark = pytest.mark.asyncio(loop_scope="session")

SISTER = ("My sister Ines finally moved to Porto with her two cats.", "Porto suits her.")
OFFSITE = ("Let's book the small room by the harbour.", "I'll hold it for the team.")


def with_old_turns() -> list[dict[str, Any]]:
    """150 turns a day apart (the first on 2026-01-06) with two plain ones far beyond P4's
    last hundred: the sister's move at turn 30, a booking at turn 40 (2026-02-14)."""
    turns = conversation()
    for number, (message, answer) in ((30, SISTER), (40, OFFSITE)):
        turns[number - 1] |= {"user_message": message, "ai_response": answer}
    return turns


async def test_old_turns_come_back_by_their_words_and_by_the_day_asked_about(
    api_client: httpx.AsyncClient,
) -> None:
    records = await import_turns(api_client, with_old_turns())
    await wait_journaled(api_client, [r["id"] for r in records], timeout=240)
    sister, offsite = records[29]["id"], records[39]["id"]

    bundle = await preview(api_client, "gunnar", "Where did Ines move to?")
    item = next(i for i in section(bundle, "recalled") if i["id"] == sister)
    assert "Porto" in item["text"] and "2026-02-04" in item["text"]
    cited = next(c for c in bundle["references"] if c["ref"] == item["ref"])
    assert cited["snippet"] in SISTER[0]  # the turn's own words, not a summary of them

    bundle = await preview(api_client, "gunnar", "What did we talk about on February 14th?")
    assert offsite in {i["id"] for i in section(bundle, "recalled")}
    other_day = await preview(api_client, "gunnar", "What did we talk about on March 30th?")
    assert offsite not in {i["id"] for i in section(other_day, "recalled")}


METEORS = ("We drove out to watch the Perseid meteor shower last night.", "How was it?")
FELT = ("I felt tiny and in awe of the universe, lying there.", "What a night.")


async def test_the_turn_after_a_recalled_one_comes_back_with_it(
    api_client: httpx.AsyncClient,
) -> None:
    """A conversation answers in the next turn, in words of its own: asked how the meteor
    shower felt, the turn that says so shares no word with the question but follows one that
    does."""
    turns = conversation()
    for number, (message, answer) in ((30, METEORS), (31, FELT)):
        turns[number - 1] |= {"user_message": message, "ai_response": answer}
    records = await import_turns(api_client, turns)
    await wait_journaled(api_client, [r["id"] for r in records], timeout=240)

    bundle = await preview(api_client, "gunnar", "How did watching the meteor shower feel?")
    recalled = [i["id"] for i in section(bundle, "recalled")]
    assert records[29]["id"] in recalled  # the question's words
    assert records[30]["id"] in recalled  # the answer, beside them
