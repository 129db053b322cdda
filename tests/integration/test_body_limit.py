"""A body over its endpoint's limit is a 413 before anything reads it — before authentication —
whether its Content-Length says so or it arrives chunked; uploads keep their own streamed limits."""

from collections.abc import AsyncIterator

import httpx
import pytest

from shared.launcher.stack import Stack

pytestmark = pytest.mark.asyncio(loop_scope="session")
ONE_MIB = 1024 * 1024


async def _chunks(total: int, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


async def test_an_oversized_json_body_is_refused_before_authentication(system: Stack) -> None:
    async with httpx.AsyncClient(base_url=system.gateway_url, timeout=30) as anonymous:
        declared = await anonymous.post(
            "/v1/chat",
            content=b"{" + b" " * (2 * ONE_MIB),
            headers={"Content-Type": "application/json"},
        )
        assert declared.status_code == 413  # not 401: the body limit comes first
        assert "larger than this endpoint accepts (1,048,576 bytes)" in declared.json()["detail"]
        chunked = await anonymous.post("/v1/chat", content=_chunks(3 * ONE_MIB))
        assert chunked.status_code == 413


async def test_bodies_within_the_limit_still_reach_authentication(system: Stack) -> None:
    async with httpx.AsyncClient(base_url=system.gateway_url) as anonymous:
        small = await anonymous.post("/v1/chat", json={"persona": "gunnar", "message": "hi"})
        assert small.status_code == 401
        chunked = await anonymous.post("/v1/chat", content=_chunks(ONE_MIB // 2))
        assert chunked.status_code == 401


async def test_an_import_may_be_larger_than_a_chat_message(api_client: httpx.AsyncClient) -> None:
    turn = {"persona": "gunnar", "user_message": "x" * 15_000, "ai_response": "y" * 15_000}
    body = {"turns": [turn] * 40}  # ~1.2 MB: over the JSON limit, under the import one
    response = await api_client.post("/v1/turns/import", json=body)
    assert response.status_code == 202, response.text
