"""The gateway's REST API against the running system: bad input, ownership, dedup, delete, retry."""

import uuid

import asyncpg
import httpx
import pytest

from shared.db import files
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV, ClientFactory
from tests.helpers import park_file, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

LIMIT_BYTES = int(TEST_ENV["ARTISAN_MAX_UPLOAD_BYTES"])
MEMO = "# Launch plan\n\nWe decided to launch in May because the beta users asked for it.\n"
# the last is well formed and nobody's (fixed, so every run collects the same tests)
BAD_IDS = ["not-a-uuid", "123", "00000000-0000-0000-0000-00000000000g", str(uuid.UUID(int=7))]


def unique(text: str) -> str:
    """Same words, new content: every test gets its own file (dedup is per content)."""
    return f"{text}\nref: {uuid.uuid4()}\n"


async def post_files(client: httpx.AsyncClient, *parts: tuple[str, bytes]) -> httpx.Response:
    return await client.post("/v1/files", files=[("files", (n, d, "text/plain")) for n, d in parts])


async def stored_file(db: asyncpg.Pool, user_id: uuid.UUID, *, failed: bool = False) -> str:
    """A file stored without being queued, so it stays where the test puts it."""
    row = await park_file(db, user_id, filename="parked.md", data=unique(MEMO).encode())
    if failed:
        await files.mark_failed(db, file_id=row["id"], attempt=row["attempt"], reason="test")
    return str(row["id"])


async def test_health_and_readiness(api_client: httpx.AsyncClient) -> None:
    assert (await api_client.get("/healthz")).json() == {"status": "ok"}
    ready = await api_client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"database": "ok", "nats": "ok", "jetstream": "ok"}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "x"}])
async def test_requests_without_a_valid_key_are_401_saying_how_to_get_one(
    system: Stack, headers: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=system.gateway_url, headers=headers) as client:
        for method, path in [("GET", "/v1/files"), ("POST", "/v1/files"), ("GET", "/v1/events")]:
            response = await client.request(method, path)
            assert response.status_code == 401, (method, path)
            assert "artisan users create" in response.json()["detail"]


async def test_upload_returns_202_with_full_records(api_client: httpx.AsyncClient) -> None:
    response = await post_files(api_client, ("a.md", unique(MEMO).encode()), ("b.txt", b"plain"))
    assert response.status_code == 202
    a, b = response.json()["items"]
    assert (a["filename"], b["filename"]) == ("a.md", "b.txt")
    assert a["media_type"] == "text/markdown" and a["status"] == "processing"
    assert a["duplicate"] is False and a["size"] == len(unique(MEMO).encode())
    for key in ("file_type", "processing_stage", "progress", "total_chunks", "processed_chunks",
                "error_message", "uploaded_at", "updated_at", "summary"):  # fmt: skip
        assert key in a


async def test_the_singular_file_field_is_accepted(api_client: httpx.AsyncClient) -> None:
    response = await api_client.post("/v1/files", files={"file": ("one.md", unique(MEMO))})
    assert response.status_code == 202
    assert response.json()["items"][0]["filename"] == "one.md"


async def test_reupload_returns_the_same_file_marked_duplicate(
    api_client: httpx.AsyncClient,
) -> None:
    content = unique(MEMO)
    first = await upload(api_client, "plan.md", content)
    again = await upload(api_client, "renamed.md", content)
    assert again["id"] == first["id"] and again["duplicate"] is True
    assert again["filename"] == "plan.md"
    listed = (await api_client.get("/v1/files")).json()["items"]
    assert [f["id"] for f in listed].count(first["id"]) == 1
    assert all(f["duplicate"] is False for f in listed)


async def test_over_the_limit_is_413_naming_limit_and_file_and_nothing_is_stored(
    api_client: httpx.AsyncClient,
) -> None:
    response = await post_files(
        api_client, ("fine.md", unique(MEMO).encode()), ("huge.txt", b"x" * (LIMIT_BYTES + 1))
    )
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert f"{LIMIT_BYTES // (1024 * 1024)} MB" in detail and "huge.txt" in detail
    assert (await api_client.get("/v1/files")).json()["items"] == []


async def test_unsupported_type_is_415_listing_supported(api_client: httpx.AsyncClient) -> None:
    response = await post_files(api_client, ("ok.md", b"fine"), ("tool.exe", b"MZ\x90\x00"))
    assert response.status_code == 415
    detail = response.json()["detail"]
    assert ".exe" in detail and ".pdf" in detail and ".md" in detail
    assert (await api_client.get("/v1/files")).json()["items"] == []


async def test_an_empty_file_is_422(api_client: httpx.AsyncClient) -> None:
    response = await post_files(api_client, ("empty.md", b""))
    assert response.status_code == 422 and "empty.md" in response.json()["detail"]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"json": {"files": []}}, {"data": {"files": "not a file"}}, {"content": b"garbage"}],
)
async def test_a_request_without_files_is_422(api_client: httpx.AsyncClient, kwargs: dict) -> None:
    response = await api_client.post("/v1/files", **kwargs)
    assert response.status_code == 422
    assert "files" in response.json()["detail"]


async def test_a_malformed_multipart_body_is_422(api_client: httpx.AsyncClient) -> None:
    headers = {"Content-Type": "multipart/form-data; boundary=XX"}
    response = await api_client.post("/v1/files", content=b"--XX\r\nbroken", headers=headers)
    assert response.status_code == 422


async def test_hostile_filenames_are_neutralised(api_client: httpx.AsyncClient) -> None:
    response = await post_files(
        api_client,
        ("../../etc/passwd.md", unique(MEMO).encode()),
        ("..\\..\\boot.ini.txt", unique("boot").encode()),
        ("..", unique("dots").encode()),
    )
    assert response.status_code == 415  # '..' leaves no name, hence no type
    response = await post_files(
        api_client,
        ("../../etc/passwd.md", unique(MEMO).encode()),
        ("..\\..\\boot.ini.txt", unique("boot").encode()),
    )
    assert response.status_code == 202
    assert [f["filename"] for f in response.json()["items"]] == ["passwd.md", "boot.ini.txt"]


@pytest.mark.parametrize("bad_id", BAD_IDS)
async def test_unknown_or_malformed_ids_are_404(api_client: httpx.AsyncClient, bad_id: str) -> None:
    for method, path in [
        ("GET", f"/v1/files/{bad_id}"),
        ("GET", f"/v1/files/{bad_id}/chunks"),
        ("GET", f"/v1/files/{bad_id}/content"),
        ("GET", f"/v1/files/{bad_id}/events"),
        ("DELETE", f"/v1/files/{bad_id}"),
        ("POST", f"/v1/files/{bad_id}/retry"),
    ]:
        response = await api_client.request(method, path)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["detail"].startswith("File not found")


async def test_unknown_routes_answer_json(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/v2/nothing")
    assert response.status_code == 404 and "/docs" in response.json()["detail"]
    response = await api_client.put("/v1/files")
    assert response.status_code == 405 and "detail" in response.json()


async def test_another_users_file_is_invisible(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    alice, bob = await make_client(), await make_client()
    file_id = (await upload(alice, "secret.md", unique(MEMO)))["id"]
    failed_id = await stored_file(db, alice.user_id, failed=True)
    assert (await bob.get("/v1/files")).json()["items"] == []
    for method, path in [
        ("GET", f"/v1/files/{file_id}"),
        ("GET", f"/v1/files/{file_id}/chunks"),
        ("GET", f"/v1/files/{file_id}/content"),
        ("GET", f"/v1/files/{file_id}/events"),
        ("DELETE", f"/v1/files/{file_id}"),
        ("POST", f"/v1/files/{failed_id}/retry"),
    ]:
        assert (await bob.request(method, path)).status_code == 404, (method, path)
    # nothing bob did touched alice's files
    assert (await alice.get(f"/v1/files/{file_id}")).status_code == 200
    assert (await alice.get(f"/v1/files/{failed_id}")).json()["status"] == "failed"


async def test_ready_file_serves_text_and_chunks_then_delete_cascades(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    record = await upload(api_client, "plan.md", unique(MEMO))
    await wait_for_status(api_client, record["id"], "ready")
    content = await api_client.get(f"/v1/files/{record['id']}/content")
    assert content.headers["content-type"] == "text/plain; charset=utf-8"
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    assert (
        chunks
        and chunks[0]["text"] == content.text[chunks[0]["char_start"] : chunks[0]["char_end"]]
    )
    assert set(chunks[0]) == {
        "id", "chunk_index", "chunk_type", "title", "char_start", "char_end", "line_start",
        "line_end", "text", "summary", "chunk_essence", "decision_arc_summary", "salience_score",
    }  # fmt: skip

    assert (await api_client.delete(f"/v1/files/{record['id']}")).status_code == 204
    assert (await api_client.get(f"/v1/files/{record['id']}")).status_code == 404
    assert (await api_client.get(f"/v1/files/{record['id']}/chunks")).status_code == 404
    assert (await api_client.delete(f"/v1/files/{record['id']}")).status_code == 404
    left = await db.fetchval(
        "SELECT count(*) FROM file_chunks WHERE file_id = $1", uuid.UUID(record["id"])
    )
    assert left == 0


async def test_content_before_extraction_is_409(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    file_id = await stored_file(db, api_client.user_id)
    response = await api_client.get(f"/v1/files/{file_id}/content")
    assert response.status_code == 409 and "not extracted yet" in response.json()["detail"]
    assert (await api_client.get(f"/v1/files/{file_id}/chunks")).json() == {"items": []}


async def test_a_file_still_moving_cannot_be_retried(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    file_id = await stored_file(db, api_client.user_id)
    response = await api_client.post(f"/v1/files/{file_id}/retry")
    assert response.status_code == 409 and "still being processed" in response.json()["detail"]


async def test_a_stranded_file_can_be_retried_and_becomes_ready(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    file_id = await stored_file(db, api_client.user_id)
    await db.execute(
        "UPDATE files SET updated_at = now() - interval '1 hour' WHERE id = $1", uuid.UUID(file_id)
    )
    response = await api_client.post(f"/v1/files/{file_id}/retry")
    assert response.status_code == 202 and response.json()["processing_stage"] == "queued"
    await wait_for_status(api_client, file_id, "ready")
    assert await db.fetchval("SELECT attempt FROM files WHERE id = $1", uuid.UUID(file_id)) == 2


async def test_a_failed_file_retried_goes_to_ready(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    file_id = await stored_file(db, api_client.user_id, failed=True)
    failed = (await api_client.get(f"/v1/files/{file_id}")).json()
    assert failed["status"] == "failed" and failed["error_message"] == "test"
    response = await api_client.post(f"/v1/files/{file_id}/retry")
    assert response.status_code == 202
    retried = response.json()
    assert retried["id"] == file_id and retried["status"] == "processing"
    assert retried["error_message"] is None and retried["processing_stage"] == "queued"
    ready = await wait_for_status(api_client, file_id, "ready")
    assert ready["total_chunks"] >= 1
    attempt = await db.fetchval("SELECT attempt FROM files WHERE id = $1", uuid.UUID(file_id))
    assert attempt == 2


async def test_a_binary_file_fails_with_a_reason_and_can_be_retried(
    api_client: httpx.AsyncClient,
) -> None:
    garbage = bytes(range(256)) * 40 + uuid.uuid4().bytes
    record = (await post_files(api_client, ("blob.txt", garbage))).json()["items"][0]
    failed = await wait_for_status(api_client, record["id"], "failed")
    assert failed["error_message"]
    response = await api_client.post(f"/v1/files/{record['id']}/retry")
    assert response.status_code == 202 and response.json()["status"] == "processing"
    again = await wait_for_status(api_client, record["id"], "failed")
    assert again["error_message"] == failed["error_message"]
