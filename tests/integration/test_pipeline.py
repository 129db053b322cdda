"""The file pipeline end to end through real NATS JetStream, PostgreSQL and service processes."""

import asyncio
import time

import asyncpg
import httpx
import pytest

from shared.launcher.stack import Stack
from tests.conftest import ClientFactory
from tests.fixtures import documents
from tests.helpers import assert_exact_coverage, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.parametrize("filename", sorted(documents.every_format()))
async def test_every_format_becomes_ready_with_exact_coverage(
    api_client: httpx.AsyncClient, filename: str
) -> None:
    record = await upload(api_client, filename, documents.every_format()[filename])
    ready = await wait_for_status(api_client, record["id"], "ready")
    assert ready["progress"] == 100
    assert ready["file_type"] in ("strategic", "factual", "mixed")
    text = (await api_client.get(f"/v1/files/{record['id']}/content")).text
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    assert_exact_coverage(text, chunks)
    assert ready["total_chunks"] == ready["processed_chunks"] == len(chunks)
    assert ready["summary"], "the whole-file summary is stored when the file completes"
    assert all(chunk["summary"] for chunk in chunks), "every section has a summary"
    for chunk in chunks:
        if chunk["chunk_type"] == "strategic":
            assert 50 <= len(chunk["decision_arc_summary"]) <= 150
            assert 1 <= chunk["salience_score"] <= 10
            assert chunk["chunk_essence"]
        else:
            assert chunk["decision_arc_summary"] is None


async def test_extracted_text_keeps_the_documents_words(api_client: httpx.AsyncClient) -> None:
    record = await upload(api_client, "board.pdf", documents.pdf(), "application/pdf")
    await wait_for_status(api_client, record["id"], "ready")
    text = (await api_client.get(f"/v1/files/{record['id']}/content")).text
    assert "expand into Germany first" in text
    assert "DACH" in text


async def test_reupload_is_deduplicated_and_not_processed_again(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    first = await upload(api_client, "memo.md", documents.markdown() + "\nunique: dedup\n")
    await wait_for_status(api_client, first["id"], "ready")
    second = await upload(api_client, "copy-of-memo.md", documents.markdown() + "\nunique: dedup\n")
    assert second["id"] == first["id"]
    assert second["duplicate"] is True and first["duplicate"] is False
    rows = await db.fetchval("SELECT count(*) FROM files WHERE id = $1", first["id"])
    assert rows == 1


async def test_same_content_from_two_users_is_two_files(make_client: ClientFactory) -> None:
    alice, bob = await make_client(), await make_client()
    a = await upload(alice, "shared.md", "# Shared\n\nThe same words, uploaded twice.\n")
    b = await upload(bob, "shared.md", "# Shared\n\nThe same words, uploaded twice.\n")
    assert a["id"] != b["id"]
    assert b["duplicate"] is False


async def test_delete_removes_the_file_its_content_and_its_chunks(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    record = await upload(api_client, "gone.md", documents.markdown() + "\nunique: delete\n")
    await wait_for_status(api_client, record["id"], "ready")
    assert await db.fetchval("SELECT count(*) FROM file_chunks WHERE file_id = $1", record["id"])
    assert (await api_client.delete(f"/v1/files/{record['id']}")).status_code == 204
    assert (await api_client.get(f"/v1/files/{record['id']}")).status_code == 404
    for table in ("files", "file_contents", "file_chunks"):
        column = "id" if table == "files" else "file_id"
        count = await db.fetchval(f"SELECT count(*) FROM {table} WHERE {column} = $1", record["id"])
        assert count == 0, table


async def test_binary_content_fails_with_a_reason(api_client: httpx.AsyncClient) -> None:
    record = await upload(api_client, "photo.txt", bytes(range(256)) * 8)
    failed = await wait_for_status(api_client, record["id"], "failed")
    assert "binary" in failed["error_message"] or "UTF-8" in failed["error_message"]
    assert (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"] == []


async def test_retry_of_a_failed_file_completes_it_and_drops_the_stale_attempt(
    system: Stack, api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    system.supervisor.kill("chunker")
    try:
        record = await upload(api_client, "retry.md", documents.markdown() + "\nunique: retry\n")
        await _wait_for_stage(db, record["id"], "classifying")
        # what the dead-letter path does when a message keeps failing
        await db.execute(
            "UPDATE files SET status = 'failed', processing_stage = 'failed',"
            " error_message = 'model outage' WHERE id = $1",
            record["id"],
        )
    finally:
        system.supervisor.start("chunker")
    assert (await api_client.get(f"/v1/files/{record['id']}")).json()["status"] == "failed"
    retried = await api_client.post(f"/v1/files/{record['id']}/retry")
    assert retried.status_code == 202, retried.text
    ready = await wait_for_status(api_client, record["id"], "ready")
    assert ready["error_message"] is None
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    text = (await api_client.get(f"/v1/files/{record['id']}/content")).text
    assert_exact_coverage(text, chunks)
    again = await api_client.post(f"/v1/files/{record['id']}/retry")
    assert again.status_code == 409


@pytest.mark.parametrize("service", ["embedder", "compressor"])
async def test_a_service_killed_mid_pipeline_loses_nothing_and_duplicates_nothing(
    system: Stack, api_client: httpx.AsyncClient, db: asyncpg.Pool, service: str
) -> None:
    text = _long_strategic_text(sections=120, marker=service)
    record = await upload(api_client, f"long-{service}.md", text)
    await _wait_until(db, record["id"], "processed_chunks > 0 OR status <> 'processing'")
    system.supervisor.kill(service)
    killed_at = await db.fetchrow(
        "SELECT status, processed_chunks, total_chunks FROM files WHERE id = $1", record["id"]
    )
    await asyncio.sleep(0.5)
    system.supervisor.start(service, replicas=2 if service == "compressor" else 1)
    ready = await wait_for_status(api_client, record["id"], "ready", timeout=60)
    assert killed_at["status"] == "processing", "the file finished before the kill; test is void"
    assert killed_at["processed_chunks"] < killed_at["total_chunks"]
    rows = await db.fetch(
        "SELECT chunk_index, embedding IS NOT NULL AS embedded FROM file_chunks WHERE file_id = $1",
        record["id"],
    )
    assert len(rows) == ready["total_chunks"] == ready["processed_chunks"]
    assert sorted(r["chunk_index"] for r in rows) == list(range(len(rows)))
    assert all(r["embedded"] for r in rows)
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    content = (await api_client.get(f"/v1/files/{record['id']}/content")).text
    assert_exact_coverage(content, chunks)


def _long_strategic_text(sections: int, marker: str) -> str:
    body = (
        "We decided to prioritise the enterprise segment because the sales cycle is shorter. "
        "The risk is that we neglect self-serve users, so we will review churn monthly. "
    ) * 6
    return "".join(f"## Decision {i} ({marker})\n\n{body}\n\n" for i in range(sections))


async def _wait_for_stage(db: asyncpg.Pool, file_id: str, stage: str) -> None:
    await _wait_until(db, file_id, f"processing_stage = '{stage}'")


async def _wait_until(db: asyncpg.Pool, file_id: str, condition: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await db.fetchval(f"SELECT true FROM files WHERE id = $1 AND ({condition})", file_id):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"file {file_id} never satisfied {condition}")


async def test_every_model_call_is_recorded_per_file(api_client: httpx.AsyncClient) -> None:
    record = await upload(api_client, "calls.md", documents.markdown() + "\nunique: calls\n")
    await wait_for_status(api_client, record["id"], "ready")
    response = await api_client.get(f"/v1/files/{record['id']}/model-calls")
    assert response.status_code == 200, response.text
    calls = response.json()
    roles = {call["role"] for call in calls["items"]}
    assert {"classify", "chunk", "compress", "verify", "summarise", "embed"} <= roles
    assert {call["provider"] for call in calls["items"]} == {"local"}
    assert all(call["prompt_tokens"] > 0 for call in calls["items"])
    assert calls["totals"]["calls"] == len(calls["items"])
    assert calls["totals"]["cost_usd"] == 0
