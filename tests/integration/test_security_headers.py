"""Every response of the running gateway carries the security headers: the web client and its
static files, the API's JSON, errors and event streams alike."""

import httpx
import pytest

from services.gateway.security_headers import CONTENT_SECURITY_POLICY
from shared.launcher.stack import Stack

pytestmark = pytest.mark.asyncio(loop_scope="session")


def assert_secured(response: httpx.Response) -> None:
    where = f"{response.request.method} {response.request.url.path} ({response.status_code})"
    headers = response.headers
    assert headers.get("content-security-policy") == CONTENT_SECURITY_POLICY, where
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("referrer-policy") == "no-referrer", where
    assert headers.get("x-frame-options") == "DENY", where
    assert len(headers.get_list("content-security-policy")) == 1, "one policy, not two"


async def test_pages_static_files_json_and_errors_carry_the_headers(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    async with httpx.AsyncClient(base_url=system.gateway_url) as anonymous:
        for path, status in [
            ("/", 200),
            ("/static/index.html", 200),
            ("/static/js/main.js", 200),
            ("/static/nothing.js", 404),
            ("/v2/nothing", 404),
            ("/v1/files", 401),
            ("/healthz", 200),
        ]:
            response = await anonymous.get(path)
            assert response.status_code == status, (path, response.text)
            assert_secured(response)
        too_large = await anonymous.post("/v1/search", content=b"x" * (2 * 1024 * 1024))
        assert too_large.status_code == 413
        assert_secured(too_large)
    listed = await api_client.get("/v1/files")
    assert listed.status_code == 200 and listed.headers["content-type"] == "application/json"
    assert_secured(listed)


async def test_an_event_stream_carries_the_headers_and_still_streams(
    api_client: httpx.AsyncClient,
) -> None:
    async with api_client.stream("GET", "/v1/events") as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert_secured(stream)
        first = await anext(stream.aiter_lines())  # a streamed line, before the stream ends
        assert first is not None
