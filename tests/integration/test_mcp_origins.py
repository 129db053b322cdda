"""/mcp checks Host and Origin before anything else, as the MCP spec asks: a page of another site
(its Origin) or a DNS-rebinding page (its name as Host) is refused, with words that say what to
configure; a program, which sends no Origin, gets through with its key."""

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.integration.test_mcp_http import key_of

pytestmark = pytest.mark.asyncio(loop_scope="session")
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "origin-test", "version": "1"},
    },
}


async def initialize(system: Stack, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=system.gateway_url, timeout=30) as http:
        return await http.post("/mcp", json=INITIALIZE, headers={**ACCEPT, **headers})


async def test_a_program_without_an_origin_and_a_local_page_get_through(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    key = {"Authorization": key_of(api_client)}
    assert (await initialize(system, key)).status_code == 200
    port = system.gateway_url.rsplit(":", 1)[1]
    for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}"):
        response = await initialize(system, {**key, "Origin": origin})
        assert response.status_code == 200, (origin, response.text)


async def test_a_page_of_another_site_is_refused_before_its_key_is_read(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    for headers in ({"Authorization": key_of(api_client)}, {}):
        response = await initialize(system, {**headers, "Origin": "https://evil.example"})
        assert response.status_code == 403
        detail = response.json()["detail"]
        assert "Origin 'https://evil.example' may not use /mcp" in detail
        assert "ARTISAN_ALLOWED_ORIGINS" in detail
        assert response.headers["x-content-type-options"] == "nosniff"


async def test_a_rebound_name_is_refused(system: Stack, api_client: httpx.AsyncClient) -> None:
    port = system.gateway_url.rsplit(":", 1)[1]
    headers = {"Authorization": key_of(api_client), "Host": f"attacker.example:{port}"}
    response = await initialize(system, headers)
    assert response.status_code == 421
    detail = response.json()["detail"]
    assert f"Host 'attacker.example:{port}' is not a name this Artisan serves /mcp under" in detail
    assert "ARTISAN_PUBLIC_HOSTS" in detail
