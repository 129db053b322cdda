"""/mcp: Artisan's MCP server over streamable HTTP, for Cursor, Claude and any MCP client.

The door takes the API key exactly as the REST API does (`Authorization: Bearer <key>`, 401
without, never in the URL). Each tool call is then made as loopback REST requests, in process,
carrying the caller's own key: permissions, isolation, limits and validation are the REST API's."""

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import httpx
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings

from services.gateway.auth import require_user
from services.gateway.body_limit import ASGIApp, Receive, Scope, Send
from shared.config import GatewaySettings
from shared.mcp_server.rest import ANSWER_TIMEOUT
from shared.mcp_server.tools import build_server

MCP_PATH = "/mcp"
LOOPBACK_URL = "http://artisan.internal"  # never dialled: requests go to the app in process
BASE64_OVERHEAD = 4 / 3
ENVELOPE_BYTES = 64 * 1024  # the JSON-RPC around an upload's content


def mcp_body_limit(settings: GatewaySettings) -> int:
    """An upload comes inside the request as base64: the largest file, encoded, and its envelope."""
    return int(settings.max_upload_bytes * BASE64_OVERHEAD) + ENVELOPE_BYTES


def mount_mcp(app: FastAPI) -> Callable[[], AbstractAsyncContextManager[None]]:
    """Serve MCP at /mcp; returns what the app's lifespan must run while it serves."""
    server = build_server(_loopback_client(app))
    transport = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        # stateless: each request carries its own key and stands alone, so any gateway replica
        # can serve it and a restart loses nothing
        stateless_http=True,
        max_request_body_size=mcp_body_limit(app.state.gateway_settings),
        # the DNS-rebinding guard checks Host against localhost; the gateway may be served under
        # any name, and a page that rebinds a name still cannot send the user's key
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    app.add_route(
        MCP_PATH, _Door(transport), methods=["GET", "POST", "DELETE"], include_in_schema=False
    )
    return server.session_manager.run


class _Door:
    """Refuses a request without a valid key before MCP reads a byte of it. A class, not a
    function: Starlette hands a plain function a Request, an ASGI app the raw scope."""

    def __init__(self, transport: ASGIApp) -> None:
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await require_user(Request(scope), None)
        except HTTPException as refused:
            body = JSONResponse({"detail": refused.detail}, refused.status_code, refused.headers)
            await body(scope, receive, send)
            return
        await self.transport(scope, receive, send)


def _loopback_client(app: FastAPI) -> Callable[[Context], httpx.AsyncClient]:
    def client_for(ctx: Context) -> httpx.AsyncClient:
        headers = ctx.headers or {}
        return httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url=LOOPBACK_URL,
            headers={"Authorization": headers.get("authorization", "")},
            timeout=ANSWER_TIMEOUT,
        )

    return client_for
