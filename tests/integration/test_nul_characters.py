"""A NUL character (\\u0000), which PostgreSQL text cannot hold, is a clear 422 at every endpoint
that takes text, never a 500 (nor an `error` event after the stream has begun)."""

import httpx
import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")

NUL = "pricing\u0000plan"


async def test_a_nul_character_is_refused_clearly_everywhere_text_goes_in(
    api_client: httpx.AsyncClient,
) -> None:
    turn = {"persona": "gunnar", "user_message": "hello", "ai_response": "hi"}
    requests = [
        ("POST", "/v1/chat", {"json": {"persona": "gunnar", "message": NUL}}, "message"),
        ("POST", "/v1/turns/import", {"json": {"turns": [{**turn, "user_message": NUL}]}}, "0"),
        (
            "POST",
            "/v1/turns/import",
            {"json": {"turns": [turn, {**turn, "ai_response": NUL}]}},
            "1",
        ),
        ("GET", "/v1/search", {"params": {"q": NUL}}, "q"),
        ("GET", "/v1/context/preview", {"params": {"persona": "gunnar", "q": NUL}}, "q"),
    ]
    for method, path, options, where in requests:
        response = await api_client.request(method, path, **options)
        assert response.status_code == 422, (path, response.text)
        detail = response.json()["detail"]
        assert "NUL" in detail and where in detail, (path, detail)
    assert (await api_client.get("/v1/turns")).json()["items"] == []
