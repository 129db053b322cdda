"""The context service through the real bus and database (issue 4, "what it must show"): turns
imported through POST /v1/turns/import and journaled by the real compressor and embedder,
context previewed through GET /v1/context/preview (gateway → NATS → context service)."""

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from shared.config import chat_settings
from shared.db.context import nearest_journal
from shared.launcher.stack import Stack
from shared.providers.local.embed import embed_texts
from tests.benchmarks.memory_fixtures import insert_files, insert_turns, synthetic_turns
from tests.conftest import ClientFactory
from tests.helpers import import_turns, upload, wait_for_status, wait_journaled

pytestmark = pytest.mark.asyncio(loop_scope="session")

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FILLER = [
    ("How should we structure the weekly engineering standup?", "Keep it to fifteen minutes."),
    ("Which CRM should the sales team adopt next quarter?", "The one your senior reps know."),
    ("Is it time to hire a second designer?", "Once the design backlog exceeds three weeks."),
    ("How do we reduce onboarding time for new customers?", "A guided setup call, a checklist."),
    ("Should we move our servers to another region?", "Not until latency complaints appear."),
    ("What should the agenda be for the board meeting?", "Runway, hiring, the product bets."),
    ("How do I handle a conflict between two team leads?", "Agree the goal, split ownership."),
    ("Should we sponsor the regional startup conference?", "Only if ten target customers go."),
]
INSTRUCTION = "Gunnar, from now on don't use sports analogies in your answers."
PRICING = (
    "We decided to raise the Pro plan price by 20% in March; existing customers keep their"
    " current price for six months. Is that the right pricing call?"
)
STARRED = "Remember this: our north star metric is weekly active teams, not signups."


def conversation(count: int = 150) -> list[dict[str, Any]]:
    """`count` turns a day apart: an instruction to gunnar at 5, a starred one at 10, the
    pricing decision at 20, and unrelated questions to every persona elsewhere."""
    personas = ["vlad", "kirby", "stefan", "ananya", "samara", "gunnar"]
    turns = []
    for number in range(1, count + 1):
        persona, (message, answer) = personas[number % 6], FILLER[number % len(FILLER)]
        message = f"{message} (week {number})"
        if number == 5:
            persona, message, answer = "gunnar", INSTRUCTION, "Understood: no sports analogies."
        elif number == 10:
            persona, message, answer = "vlad", STARRED, "Noted: weekly active teams it is."
        elif number == 20:
            persona, answer = "gunnar", "Yes: usage growth justifies the pricing increase."
            message = PRICING
        created = (T0 + timedelta(days=number)).isoformat()
        turns.append(
            {
                "persona": persona,
                "user_message": message,
                "ai_response": answer,
                "created_at": created,
            }
        )
    return turns


async def preview(client: httpx.AsyncClient, persona: str, q: str, **params: Any) -> dict:
    response = await client.get(
        "/v1/context/preview", params={"persona": persona, "q": q, **params}
    )
    assert response.status_code == 200, response.text
    return response.json()


def section(bundle: dict, name: str) -> list[dict]:
    return next(s for s in bundle["sections"] if s["name"] == name)["items"]


def all_ids(bundle: dict) -> list[str]:
    """Identities of the items: an attachment (a reference to a file) is not its content, an
    instruction (a standing rule) is not the turn that gave it."""
    marked = {"attachment": "attached:", "instruction": "instruction:"}
    return [
        f"{marked.get(item['kind'], '')}{item['id']}"
        for s in bundle["sections"]
        for item in s["items"]
    ]


def assert_well_formed(bundle: dict) -> None:
    """Nothing twice, under the cap, tokens adding up, refs numbered in order."""
    ids = all_ids(bundle)
    assert len(ids) == len(set(ids)), "an item entered two priorities"
    assert bundle["total_tokens"] <= bundle["cap_tokens"]
    assert bundle["total_tokens"] == sum(s["tokens"] for s in bundle["sections"])
    refs = [i["ref"] for s in bundle["sections"] for i in s["items"] if i["ref"] is not None]
    assert refs == list(range(1, len(refs) + 1))
    assert [c["ref"] for c in bundle["references"]] == refs


async def test_150_turns_instructions_stay_with_their_persona_and_old_decisions_resurface(
    api_client: httpx.AsyncClient,
) -> None:
    records = await import_turns(api_client, conversation())
    await wait_journaled(api_client, [r["id"] for r in records], timeout=240)
    instruction, starred, pricing = records[4]["id"], records[9]["id"], records[19]["id"]
    assert (await api_client.post(f"/v1/turns/{starred}/star")).status_code == 200

    gunnar = await preview(api_client, "gunnar", "What did we decide about pricing?")
    assert_well_formed(gunnar)
    assert gunnar["journal_entries"] == 150
    assert [i["id"] for i in section(gunnar, "instructions")] == [instruction]
    assert "sports analogies" in section(gunnar, "instructions")[0]["text"]
    assert [i["id"] for i in section(gunnar, "starred")] == [starred]
    # P1: the last 5 of gunnar's conversation (the import started one per persona)
    with_gunnar = [r["id"] for r in records if r["persona"] == "gunnar"]
    assert [i["id"] for i in section(gunnar, "recent_turns")] == with_gunnar[-5:]
    recalled = section(gunnar, "recalled")
    assert recalled and recalled[0]["id"] == pricing, recalled
    cited = next(c for c in gunnar["references"] if c["ref"] == recalled[0]["ref"])
    assert cited["turn_id"] == pricing and cited["snippet"]
    journal = await api_client.get("/v1/journal", params={"limit": 200})
    entry = next(e for e in journal.json()["items"] if e["turn_id"] == pricing)
    assert cited["title"] == entry["decision_arc_summary"]
    said = conversation()[19]  # a recalled turn quotes its own words
    assert cited["snippet"] in said["user_message"] or cited["snippet"] in said["ai_response"]
    assert gunnar["retrieval_confidence"] >= 0.3

    vlad = await preview(api_client, "vlad", "What did we decide about pricing?")
    assert_well_formed(vlad)
    assert instruction not in all_ids(vlad)
    assert "sports analogies" not in str(vlad["sections"])
    assert starred in [i["id"] for i in section(vlad, "starred")]

    # deleting turns removes them from every later context
    for turn_id in (pricing, starred):
        assert (await api_client.delete(f"/v1/turns/{turn_id}")).status_code == 204
    after = await preview(api_client, "gunnar", "What did we decide about pricing?")
    assert_well_formed(after)
    assert pricing not in all_ids(after) and starred not in all_ids(after)
    assert all(c.get("turn_id") not in (pricing, starred) for c in after["references"])
    assert section(after, "starred") == []


async def test_file_passages_are_cited_exactly_and_leave_with_their_file(
    api_client: httpx.AsyncClient,
) -> None:
    text = (
        "# Hiring plan\n\nWe will hire two backend engineers in Lisbon before the third"
        " quarter.\nThe recruiting budget is 60,000 euros.\n"
    )
    record = await upload(api_client, "hiring.md", text)
    await wait_for_status(api_client, record["id"], "ready")
    bundle = await preview(api_client, "kirby", "How many backend engineers will we hire?")
    assert_well_formed(bundle)
    assert bundle["path"] == "search"
    [passage] = [i for i in section(bundle, "files") if i["kind"] == "chunk"]
    citation = next(c for c in bundle["references"] if c["ref"] == passage["ref"])
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    chunk = next(c for c in chunks if c["id"] == citation["chunk_id"])
    assert citation["snippet"] in chunk["text"]
    assert citation["file_id"] == record["id"] and citation["filename"] == "hiring.md"
    assert (citation["char_start"], citation["line_start"]) == (chunk["char_start"], 1)
    assert bundle["retrieval_confidence"] >= 0.5  # three of the question's four terms

    unrelated = await preview(api_client, "kirby", "Quarterly volcano eruption statistics")
    assert section(unrelated, "files") == []
    assert unrelated["retrieval_confidence"] < 0.3

    assert (await api_client.delete(f"/v1/files/{record['id']}")).status_code == 204
    gone = await preview(api_client, "kirby", "How many backend engineers will we hire?")
    assert section(gone, "files") == []


async def test_summary_questions_use_stored_summaries_of_the_attached_file(
    api_client: httpx.AsyncClient,
) -> None:
    memo = "# Pricing memo\n\nUsage tiers replace per-seat pricing.\n\n# Risks\n\nChurn may rise.\n"
    other = "# Travel policy\n\nBook economy class for flights under six hours.\n"
    memo_id = (await upload(api_client, "memo.md", memo))["id"]
    other_id = (await upload(api_client, "travel.md", other))["id"]
    for file_id in (memo_id, other_id):
        await wait_for_status(api_client, file_id, "ready")
    bundle = await preview(api_client, "stefan", "Summarise this document", attach=memo_id)
    assert_well_formed(bundle)
    assert bundle["path"] == "summary"
    files = section(bundle, "files")
    assert files[0] == {**files[0], "kind": "attachment", "ref": None}
    assert files[0]["text"] == "[Attached: memo.md (text/markdown)]"
    summaries = [i for i in files if i["kind"] in ("file_summary", "section_summary")]
    assert summaries and all(i["ref"] for i in summaries)
    chunks = (await api_client.get(f"/v1/files/{memo_id}/chunks")).json()["items"]
    texts = {c["id"]: c["text"] for c in chunks}
    for item in summaries:
        citation = next(c for c in bundle["references"] if c["ref"] == item["ref"])
        assert citation["file_id"] == memo_id
        assert citation["snippet"] in texts[citation["chunk_id"]]
    assert "travel" not in str(files).lower()


async def test_preview_refuses_bad_input_clearly(make_client: ClientFactory) -> None:
    alice, bob = await make_client(), await make_client()
    unknown = await alice.get("/v1/context/preview", params={"persona": "zed", "q": "hi"})
    assert unknown.status_code == 422
    assert "gunnar" in unknown.json()["detail"] and "vlad" in unknown.json()["detail"]
    record = await upload(bob, "bob.md", "# Bob\n\nBob's private plan.\n")
    params = {"persona": "gunnar", "q": "plan", "attach": record["id"]}
    assert (await alice.get("/v1/context/preview", params=params)).status_code == 404
    params["attach"] = "not-a-uuid"
    assert (await alice.get("/v1/context/preview", params=params)).status_code == 404
    missing_q = await alice.get("/v1/context/preview", params={"persona": "gunnar"})
    assert missing_q.status_code == 422


async def test_the_cap_holds_with_1000_turns_and_50_files(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """Bulk fixtures (inserted directly, for volume): long turns, many starred, 50 files."""
    user_id = api_client.user_id  # type: ignore[attr-defined]
    turns = synthetic_turns(1000, start=T0)
    padding = " ".join(["The pricing committee reviewed every tier and every discount."] * 40)
    turns = [
        t.__class__(**{**t.__dict__, "user_message": f"{t.user_message} {padding}"}) for t in turns
    ]
    await insert_turns(db, user_id, turns)
    await db.execute(
        "UPDATE superjournal SET is_starred = true WHERE user_id = $1 AND id = ANY($2::uuid[])",
        user_id,
        [t.id for t in turns[::5]],
    )
    documents = [
        (f"doc{i}.txt", f"Pricing tiers and discounts, part {i}. " + padding) for i in range(50)
    ]
    await insert_files(db, user_id, documents, chunks_per_file=4)
    bundle = await preview(api_client, "gunnar", "What did we decide about pricing tiers?")
    assert_well_formed(bundle)
    assert bundle["cap_tokens"] == chat_settings().cap_tokens == int(131_072 * 0.4)
    assert bundle["total_tokens"] > 0.9 * bundle["cap_tokens"]  # it had more than enough
    counts = {s["name"]: (len(s["items"]), s["truncated"]) for s in bundle["sections"]}
    assert counts["recent_turns"] == (5, 0)  # P1 first, whole
    assert counts["starred"][1] > 0  # 200 long starred turns cannot all fit
    # lower priorities lose first: they only get the leftover, less than one starred turn
    assert counts["journal"][1] > counts["journal"][0]  # P4 mostly left out
    leftover = sum(s["tokens"] for s in bundle["sections"] if s["priority"] in ("P4", "P5", "F"))
    assert leftover < min(i["tokens"] for i in section(bundle, "starred"))
    assert bundle["journal_entries"] == 1000


async def test_a_stopped_context_service_is_a_clear_503(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    system.supervisor.kill("context")
    try:
        response = await api_client.get(
            "/v1/context/preview", params={"persona": "gunnar", "q": "pricing"}
        )
        assert response.status_code == 503
        assert "artisan up" in response.json()["detail"]
    finally:
        system.supervisor.start("context")
        for _ in range(100):  # until it subscribes again, for the tests after this one
            ok = await api_client.get(
                "/v1/context/preview", params={"persona": "gunnar", "q": "pricing"}
            )
            if ok.status_code == 200:
                break
            await asyncio.sleep(0.2)


async def test_p5_reads_as_many_neighbours_as_asked_and_leaves_the_search_width_alone(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """nearest_journal widens hnsw.ef_search for its own statement only: all `depth` neighbours
    come back (at the default width, 40, no more than 40 could), with their exact similarity."""
    user_id = api_client.user_id  # type: ignore[attr-defined]
    await insert_turns(db, user_id, synthetic_turns(300, start=T0))
    vector = embed_texts(["What did we decide about pricing tiers?"])[0]
    async with db.acquire() as conn:
        rows = await nearest_journal(conn, user_id=user_id, vector=vector, depth=150)
        assert await conn.fetchval("SHOW hnsw.ef_search") == "40"
        exact = await conn.fetch(
            "SELECT turn_id, 1 - (embedding <=> $2) AS similarity FROM journal"
            " WHERE user_id = $1 AND turn_id = ANY($3::uuid[])",
            user_id,
            vector.astype("float32"),
            [r["turn_id"] for r in rows],
        )
    assert len(rows) == len({r["turn_id"] for r in rows}) == 150
    assert {r["turn_id"]: r["similarity"] for r in rows} == {
        r["turn_id"]: r["similarity"] for r in exact
    }
