"""What you tell it is used (issue 13), through the real system and the offline models: names
survive into facts, facts about you and your company answer direct questions (cited as memory),
one rule decides instruction or fact and for whom, the acknowledgement says exactly that, and a
persona's offline answers follow its instructions."""

import httpx
import pytest

from tests.helpers import wait_journaled
from tests.integration.test_chat import chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")

DESIGN_DOC = """# Design notes

The company dashboard is called Lumen. Our company design system is called Prism, and every
screen of the web app uses it. The name of the mobile app is Beacon.
"""
BOARD_NOTES = """# Board notes, March

The board approved hiring two account executives in April. Hiring for the two engineers starts
in May, after the board review. The hiring budget for the year is 120,000 euros, set by the
board. The gross margin for the quarter is 74 percent.
"""


async def told(client: httpx.AsyncClient, persona: str, message: str) -> str:
    """Tell a persona something; its acknowledgement, once the turn is journaled."""
    _, done = await chat(client, persona=persona, message=message)
    assert not done["refused"] and done["citations"] == [], done
    await wait_journaled(client, [done["turn_id"]])
    return done["answer"]


async def test_the_trial_facts_about_you_answer_direct_questions_before_any_file(
    api_client: httpx.AsyncClient,
) -> None:
    await ready_file(api_client, "design.md", DESIGN_DOC)
    said = await told(
        api_client, "gunnar", "I am Maya Chen, the CEO of Brightloop. I prefer short answers."
    )
    assert said == (
        "Got it: your name is Maya Chen, you are the CEO of Brightloop and your company is called "
        "Brightloop; every advisor will know that. And you prefer short answers; from now on, "
        "every advisor will keep to that."
    )
    facts = {f["fact"]: f for f in (await api_client.get("/v1/memory")).json()["items"]}
    assert set(facts) == {
        "The user's name is Maya Chen.",
        "The user is the CEO of Brightloop.",
        "The user's company is called Brightloop.",
    }
    # the preference is an instruction for every advisor, not a fact and not Gunnar's alone
    [rule] = (await api_client.get("/v1/instructions", params={"persona": "vlad"})).json()["items"]
    assert (rule["instruction_scope"], rule["applies_to"]) == ("global", "every advisor")
    assert rule["instruction"] == "I prefer short answers."

    _, done = await chat(api_client, persona="vlad", message="What is my name?")
    assert "Maya Chen" in done["answer"] and not done["refused"], done
    [source] = done["citations"]
    assert source["fact_id"] == facts["The user's name is Maya Chen."]["id"]
    assert (source["title"], source["snippet"]) == ("About you", "The user's name is Maya Chen.")

    _, done = await chat(api_client, persona="ananya", message="What is my company called?")
    assert "Brightloop" in done["answer"] and "Lumen" not in done["answer"], done
    [source] = done["citations"]
    assert source["fact_id"] == facts["The user's company is called Brightloop."]["id"]

    _, done = await chat(api_client, persona="kirby", message="What's my role?")
    assert done["answer"] == f"You are the CEO of Brightloop. [Ref: {done['citations'][0]['ref']}]"


async def test_always_said_to_one_advisor_is_for_every_advisor_unless_one_is_named(
    api_client: httpx.AsyncClient,
) -> None:
    said = await told(api_client, "ananya", "Always answer in English.")
    assert said == "Noted — from now on, every advisor will answer in English."
    gunnar = (await api_client.get("/v1/instructions", params={"persona": "gunnar"})).json()
    [rule] = gunnar["items"]
    assert rule["instruction_scope"] == "global"
    assert rule["instruction"] == "Always answer in English."

    said = await told(api_client, "gunnar", "Vlad, never use sports analogies.")
    assert said == (
        "Noted — from now on, Vlad won't use sports analogies. That one is for Vlad only."
    )
    gunnar = (await api_client.get("/v1/instructions", params={"persona": "gunnar"})).json()
    vlad = (await api_client.get("/v1/instructions", params={"persona": "vlad"})).json()
    assert [r["instruction_scope"] for r in gunnar["items"]] == ["global"]
    assert [(r["instruction_scope"], r["applies_to"]) for r in vlad["items"]] == [
        ("global", "every advisor"),
        ("vlad", "Vlad"),
    ]
    assert vlad["items"][1]["instruction"] == "Never use sports analogies."


async def test_offline_answers_follow_short_answers_and_bullet_points(
    api_client: httpx.AsyncClient,
) -> None:
    await ready_file(api_client, "board.md", BOARD_NOTES)
    question = "What did the board decide about hiring?"
    _, before = await chat(api_client, persona="vlad", message=question)
    assert before["answer"].count("[Ref:") >= 2, before  # several sentences answer it

    await told(api_client, "gunnar", "Kirby, always answer in bullet points.")
    _, kirby = await chat(api_client, persona="kirby", message=question)
    lines = kirby["answer"].splitlines()
    assert sum(line.startswith("- ") for line in lines) >= 2, kirby  # a list, as Kirby was told
    _, vlad = await chat(api_client, persona="vlad", message=question)
    assert not any(line.startswith("- ") for line in vlad["answer"].splitlines())  # not Vlad

    await told(api_client, "vlad", "I prefer short answers.")
    _, after = await chat(api_client, persona="vlad", message=question)
    assert after["answer"].count("[Ref:") == 1 and "\n" not in after["answer"], after
    assert after["answer"].rstrip().endswith("]") and not after["refused"]
