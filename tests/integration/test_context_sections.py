"""What each section of the context holds, through the real bus and pipeline: P5 only beyond
P4's journal entries, memory facts with P3, strategic passages as their Artisan Cut and factual
ones as their raw text."""

import httpx
import pytest

from shared.config import chat_settings
from tests.helpers import import_turns, upload, wait_for_status, wait_journaled
from tests.integration.test_context import conversation, preview, section

pytestmark = pytest.mark.asyncio(loop_scope="session")

STRATEGY = """# Pricing strategy

We decided to move to usage tiers because our largest customers kept asking for predictable
bills. I think we should protect small teams going forward; my advice is to keep a free tier.
"""
PRICE_LIST = """# Pricing table

| Tier | Price per month | Seats |
|------|-----------------|-------|
| Starter | $19 | 3 |
| Pro | $49 | 10 |
| Enterprise | $199 | 100 |
"""


async def test_p5_stays_off_while_p4_holds_the_journal_and_opens_one_entry_beyond(
    api_client: httpx.AsyncClient,
) -> None:
    p4 = chat_settings().journal_recent
    turns = conversation(p4 + 1)
    records = await import_turns(api_client, turns[1:])  # P4's entries, the first one kept back
    await wait_journaled(api_client, [r["id"] for r in records], timeout=240)
    question = f"What did we say about this: {turns[0]['user_message']}"  # the oldest's words
    full = await preview(api_client, "gunnar", question)
    assert full["journal_entries"] == p4
    assert section(full, "recalled") == []
    assert len(section(full, "journal")) > 0

    [oldest] = await import_turns(api_client, turns[:1])  # the oldest: P4 takes the newest
    await wait_journaled(api_client, [oldest["id"]])
    beyond = await preview(api_client, "gunnar", question)
    assert beyond["journal_entries"] == p4 + 1
    assert [i["id"] for i in section(beyond, "recalled")] == [oldest["id"]]


async def test_memory_facts_enter_with_p3(api_client: httpx.AsyncClient) -> None:
    turn = {
        "persona": "stefan",
        "user_message": "I am the head of sales at Acme. Our bottleneck is onboarding.",
        "ai_response": "Noted.",
    }
    records = await import_turns(api_client, [turn])
    await wait_journaled(api_client, [r["id"] for r in records])
    facts = {f["id"]: f for f in (await api_client.get("/v1/memory")).json()["items"]}
    bundle = await preview(api_client, "ananya", "How do we grow sales?")
    [memory] = [s for s in bundle["sections"] if s["name"] == "memory"]
    assert memory["priority"] == "P3"
    assert {i["id"] for i in memory["items"]} == set(facts) and len(facts) == 3
    texts = [i["text"] for i in memory["items"]]
    assert "About the user: The user is the head of sales at Acme." in texts
    assert "About the company: The user's company is called Acme." in texts
    assert "About the company: The company's bottleneck is onboarding." in texts
    # each fact is citable, as itself: a question about the user or the company cites it
    cited = {r["fact_id"]: r for r in bundle["references"] if r.get("fact_id")}
    assert set(cited) == set(facts)
    assert {r["snippet"] for r in cited.values()} == {f["fact"] for f in facts.values()}


async def test_strategic_passages_enter_as_their_cut_and_factual_ones_as_raw_text(
    api_client: httpx.AsyncClient,
) -> None:
    records = [
        await upload(api_client, n, t)
        for n, t in [("strategy.md", STRATEGY), ("prices.md", PRICE_LIST)]
    ]
    chunks = {}
    for record in records:
        await wait_for_status(api_client, record["id"], "ready")
        listed = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
        chunks.update({c["id"]: c for c in listed})
    kinds = {c["chunk_type"] for c in chunks.values()}
    assert kinds == {"strategic", "factual"}, [
        (c["title"], c["chunk_type"]) for c in chunks.values()
    ]

    passages = []
    for question in ("Why did we move to usage tiers?", "What is the Pro price per month?"):
        bundle = await preview(api_client, "kirby", question)
        passages += [i for i in section(bundle, "files") if i["kind"] == "chunk"]
    assert {chunks[i["id"]]["chunk_type"] for i in passages} == {"strategic", "factual"}
    for item in passages:
        chunk = chunks[item["id"]]
        if chunk["chunk_type"] == "strategic":
            assert chunk["chunk_essence"] and chunk["chunk_essence"] in item["text"]
            assert f"Arc: {chunk['decision_arc_summary']}" in item["text"]
            assert chunk["text"].strip() not in item["text"]
        else:
            assert chunk["text"] in item["text"]
