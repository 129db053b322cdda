"""A NUL character (\\u0000), which PostgreSQL text cannot hold, or an unpaired surrogate, which
no UTF-8 can encode, is a clear 422 at every endpoint that takes text, never a 500 (nor an `error`
event after the stream has begun)."""

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


async def test_an_unpaired_surrogate_is_refused_clearly_everywhere_text_goes_in(
    api_client: httpx.AsyncClient,
) -> None:
    """JSON may escape half of a UTF-16 pair ("\\ud800"); no UTF-8 holds it, so it is a 422."""
    turn = '{"persona": "gunnar", "user_message": "hello", "ai_response": "%s"}'
    bodies = [
        ("/v1/chat", '{"persona": "gunnar", "message": "plan \\ud800 b"}', "message"),
        ("/v1/turns/import", '{"turns": [%s]}' % (turn % "reply \\udfff"), "ai_response"),
    ]
    headers = {"Content-Type": "application/json"}
    for path, body, where in bodies:
        response = await api_client.post(path, content=body.encode(), headers=headers)
        assert response.status_code == 422, (path, response.text)
        detail = response.json()["detail"]
        # pydantic may refuse it first, as "not a valid unicode string": clear either way
        assert where in detail and ("surrogate" in detail or "unicode" in detail), (path, detail)
    # in a URL it can only come as the bytes of its would-be UTF-8 (ED A0 80): never a 500
    for path in ("/v1/search", "/v1/context/preview"):
        response = await api_client.get(f"{path}?persona=gunnar&q=a%ED%A0%80b")
        assert response.status_code < 500, (path, response.text)
    assert (await api_client.get("/v1/turns")).json()["items"] == []
