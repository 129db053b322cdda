"""Files that update in place (PUT /v1/files/{id}): same id, unchanged chunks reused without a
model call, the previous version searched until the new one is ready, a failed update harmless."""

import hashlib
from collections import Counter
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import pytest

from shared.db import chunks, file_versions
from tests.conftest import ClientFactory
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

TOPICS = [
    "pricing",
    "hiring",
    "germany",
    "austria",
    "support",
    "billing",
    "security",
    "onboarding",
    "partners",
    "marketing",
    "analytics",
    "mobile",
    "search",
    "exports",
    "compliance",
    "hosting",
    "latency",
    "roadmap",
    "training",
    "docs",
    "sales",
    "retention",
    "legal",
    "budget",
]
CHANGED_SECTION = 11  # "mobile"
OLD_PHRASE = "speed matters more than breadth"
NEW_PHRASE = "the zeppelin prototype matters more than the native apps"
# the roles a model call is made for per chunk; the rest are once per file version
PER_CHUNK_ROLES = ("compress", "verify", "embed")


def _section(i: int, topic: str) -> str:
    sentences = [
        f"We decided to rework {topic} in quarter {i % 4 + 1} because the {topic} numbers fell"
        f" short of plan by {i + 7} percent.",
        f"The team chose option {chr(65 + i % 3)} for {topic} over the alternatives after"
        " weighing cost, risk and the time it would take.",
        f"Maria owns the {topic} follow-up and reports back by March {i + 1}, with a written"
        " review of what changed and why.",
        f"We rejected the cheaper {topic} path because it would have locked us into a vendor we"
        " do not trust with customer data.",
        f"The board asked for a second opinion on {topic}; Jonas gathered it from three customers"
        f" and two partners in week {i + 2}.",
        f"Their feedback on {topic} was mixed, but the strongest signal was that {OLD_PHRASE}"
        " for the first release.",
        f"So the {topic} plan is narrow: one market, one team, one measurable goal, and a"
        " decision point after eight weeks.",
        f"If the {topic} goal is missed by more than a fifth, we stop, write down what we"
        " learned, and move the budget elsewhere.",
        f"Everyone agreed that {topic} is not a side project; it gets a weekly slot in the"
        " leadership meeting until it lands.",
    ]
    return " ".join(sentences * 2)


def plan(*, changed: bool, tag: str) -> str:
    """24 sections, one chunk each under the local chunker; `changed` rewrites one paragraph."""
    parts = [f"# Expansion decisions 2026 ({tag})\n"]
    for i, topic in enumerate(TOPICS):
        body = _section(i, topic)
        if changed and i == CHANGED_SECTION:
            body = body.replace(OLD_PHRASE, NEW_PHRASE)
        parts.append(f"## {i + 1}. {topic.title()}\n\n{body}\n")
    return "\n".join(parts)


async def put(client: httpx.AsyncClient, file_id: str, name: str, text: str) -> httpx.Response:
    part = (name, text.encode(), "text/markdown")
    return await client.put(f"/v1/files/{file_id}", files=[("files", part)])


async def search_texts(client: httpx.AsyncClient, query: str) -> list[str]:
    response = await client.get("/v1/search", params={"q": query, "limit": 5})
    assert response.status_code == 200, response.text
    return [hit["snippet"] for hit in response.json()["items"]]


async def calls_by_role(db: asyncpg.Pool, file_id: str) -> Counter[str]:
    rows = await db.fetch("SELECT role FROM model_calls WHERE file_id = $1", UUID(file_id))
    return Counter(row["role"] for row in rows)


async def chunk_rows(client: httpx.AsyncClient, file_id: str) -> list[dict[str, Any]]:
    return (await client.get(f"/v1/files/{file_id}/chunks")).json()["items"]


async def test_an_update_reprocesses_only_the_changed_chunk(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    client = await make_client()
    first = await upload(client, "plan.md", plan(changed=False, tag="reuse"), "text/markdown")
    await wait_for_status(client, first["id"], "ready")
    before = await chunk_rows(client, first["id"])
    assert len(before) == 24
    first_calls = await calls_by_role(db, first["id"])
    old_chunk = before[CHANGED_SECTION]

    response = await put(client, first["id"], "plan.md", plan(changed=True, tag="reuse"))
    assert response.status_code == 202, response.text
    assert (response.json()["id"], response.json()["version"]) == (first["id"], 2)
    ready = await wait_for_status(client, first["id"], "ready")
    after = await chunk_rows(client, first["id"])

    assert (ready["version"], ready["live_version"], ready["reused_chunks"]) == (2, 2, 23)
    assert len(after) == 24
    kept = [a for a, b in zip(after, before, strict=True) if a["id"] == b["id"]]
    assert len(kept) == 23, "every unchanged chunk keeps its id"
    assert all(
        (a["decision_arc_summary"], a["chunk_essence"])
        == (b["decision_arc_summary"], b["chunk_essence"])
        for a, b in zip(after, before, strict=True)
        if a["id"] == b["id"]
    )
    assert after[CHANGED_SECTION]["id"] != old_chunk["id"]
    assert NEW_PHRASE in after[CHANGED_SECTION]["text"]
    assert after[CHANGED_SECTION]["decision_arc_summary"]

    # the model calls of the update: one chunk's worth, where the first version made 24
    update_calls = await calls_by_role(db, first["id"]) - first_calls
    for role in PER_CHUNK_ROLES:
        assert first_calls[role] == 24, (role, first_calls)
        assert update_calls[role] == 1, (role, update_calls)

    # the replaced chunk is gone (a turn that cited it keeps what it quoted:
    # tests/integration/test_update_storage.py)
    replaced = await chunks.get_chunk(
        db, user_id=client.user_id, file_id=UUID(first["id"]), chunk_id=UUID(old_chunk["id"])
    )
    assert replaced is None
    # search reads the new version only
    assert any(NEW_PHRASE in text for text in await search_texts(client, "zeppelin prototype"))
    mobile = await search_texts(client, "mobile strongest signal speed breadth")
    assert mobile and not any("mobile" in t and OLD_PHRASE in t for t in mobile)
    text = (await client.get(f"/v1/files/{first['id']}/content")).text
    assert all(text[c["char_start"] : c["char_end"]] == c["text"] for c in after)


async def test_the_previous_version_is_searched_until_the_new_one_is_ready(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    client = await make_client()
    first = await upload(client, "plan.md", plan(changed=False, tag="parked"), "text/markdown")
    await wait_for_status(client, first["id"], "ready")
    new_text = plan(changed=True, tag="parked").encode()
    # the update is stored but parked where no worker has taken it (the dispatcher leaves it)
    async with db.acquire() as conn, conn.transaction():
        row = await file_versions.begin_update(
            conn,
            user_id=client.user_id,
            file_id=UUID(first["id"]),
            content_hash=hashlib.sha256(new_text).hexdigest(),
            data=new_text,
        )
        await conn.execute(
            "UPDATE files SET processing_stage = 'extracting' WHERE id = $1", row["id"]
        )
    assert not any(NEW_PHRASE in t for t in await search_texts(client, "zeppelin prototype"))
    assert any(OLD_PHRASE in t for t in await search_texts(client, "mobile speed breadth"))
    busy = await put(client, first["id"], "plan.md", plan(changed=True, tag="other"))
    assert busy.status_code == 409 and "being processed" in busy.json()["detail"]

    await db.execute("UPDATE files SET processing_stage = 'queued' WHERE id = $1", row["id"])
    await wait_for_status(client, first["id"], "ready")
    assert any(NEW_PHRASE in t for t in await search_texts(client, "zeppelin prototype"))


async def test_a_failed_update_leaves_the_previous_version_ready_and_searched(
    make_client: ClientFactory,
) -> None:
    client = await make_client()
    first = await upload(client, "plan.md", plan(changed=False, tag="fails"), "text/markdown")
    await wait_for_status(client, first["id"], "ready")
    before = await chunk_rows(client, first["id"])
    garbage = bytes(range(256)) * 64  # binary: the extractor refuses it, permanently
    response = await client.put(
        f"/v1/files/{first['id']}", files=[("files", ("plan.md", garbage, "text/markdown"))]
    )
    assert response.status_code == 202, response.text

    record = await _settled_with_error(client, first["id"])
    assert (record["status"], record["version"], record["live_version"]) == ("ready", 1, 1)
    assert "update to version 2 failed" in record["error_message"]
    assert await chunk_rows(client, first["id"]) == before
    assert any(OLD_PHRASE in t for t in await search_texts(client, "mobile speed breadth"))
    assert OLD_PHRASE in (await client.get(f"/v1/files/{first['id']}/content")).text
    # the same update again is a new attempt, not a "nothing changed"
    fixed = await put(client, first["id"], "plan.md", plan(changed=True, tag="fails"))
    assert fixed.status_code == 202, fixed.text
    assert (await wait_for_status(client, first["id"], "ready"))["error_message"] is None


async def _settled_with_error(client: httpx.AsyncClient, file_id: str) -> dict[str, Any]:
    """Wait until the failed update has been rolled back (ready again, with its reason)."""
    async with client.stream("GET", f"/v1/files/{file_id}/events", timeout=60) as events:
        async for _ in events.aiter_lines():
            record = (await client.get(f"/v1/files/{file_id}")).json()
            if record["status"] != "processing":
                return record
    return (await client.get(f"/v1/files/{file_id}")).json()


async def test_update_refusals_say_what_to_do(make_client: ClientFactory) -> None:
    owner, stranger = await make_client(), await make_client()
    first = await upload(owner, "plan.md", plan(changed=False, tag="refusals"), "text/markdown")
    await wait_for_status(owner, first["id"], "ready")

    same = await put(owner, first["id"], "plan.md", plan(changed=False, tag="refusals"))
    assert same.status_code == 200 and same.json()["version"] == 1
    other_type = await owner.put(
        f"/v1/files/{first['id']}", files=[("files", ("plan.txt", b"new words", "text/plain"))]
    )
    assert other_type.status_code == 415 and ".md" in other_type.json()["detail"]
    theirs = await put(stranger, first["id"], "plan.md", plan(changed=True, tag="refusals"))
    assert theirs.status_code == 404
    twin = await upload(owner, "twin.md", plan(changed=True, tag="twin"), "text/markdown")
    await wait_for_status(owner, twin["id"], "ready")
    clash = await put(owner, first["id"], "plan.md", plan(changed=True, tag="twin"))
    assert clash.status_code == 409 and "twin.md" in clash.json()["detail"]
