"""/mcp: Artisan's MCP server over streamable HTTP, for Cursor, Claude and any MCP client.

The door takes the API key exactly as the REST API does (`Authorization: Bearer <key>`, 401
without, never in the URL). Each tool call is then made as loopback REST requests, in process,
carrying the caller's own key: permissions, isolation, limits and validation are the REST API's.

Before the key, the door checks `Host` and `Origin` as the MCP spec asks (a DNS-rebinding page
would send its own name as Host, a foreign page its own Origin): loopback names, ARTISAN_HOST and
ARTISAN_PUBLIC_HOSTS are allowed, with their http(s) origins and ARTISAN_ALLOWED_ORIGINS. A
request without an Origin comes from a program, not a page, and passes."""

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import httpx
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings

from services.gateway.auth import require_user
from services.gateway.body_limit import ASGIApp, Receive, Scope, Send
from shared.config import GatewaySettings
from shared.mcp_server.rest import ANSWER_TIMEOUT
from shared.mcp_server.tools import build_server

MCP_PATH = "/mcp"
LOOPBACK_URL = "http://artisan.internal"  # never dialled: requests go to the app in process
BASE64_OVERHEAD = 4 / 3
ENVELOPE_BYTES = 64 * 1024  # the JSON-RPC around an upload's content
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
LISTEN_ON_ALL = ("", "0.0.0.0", "::")  # not a name anyone reaches the gateway by
HOST_REFUSED = (
    "Host {host!r} is not a name this Artisan serves /mcp under (a guard against DNS rebinding):"
    " use localhost or 127.0.0.1, or add the name to ARTISAN_PUBLIC_HOSTS."
)
ORIGIN_REFUSED = (
    "Origin {origin!r} may not use /mcp: a web page from another site cannot call this"
    " Artisan's MCP server. If the page is yours, add its origin to ARTISAN_ALLOWED_ORIGINS."
)


def mcp_body_limit(settings: GatewaySettings) -> int:
    """An upload comes inside the request as base64: the largest file, encoded, and its envelope."""
    return int(settings.max_upload_bytes * BASE64_OVERHEAD) + ENVELOPE_BYTES


def transport_security(settings: GatewaySettings) -> TransportSecuritySettings:
    """The Host and Origin values /mcp accepts ("name:*" is the SDK's "on any port")."""
    names = [*LOOPBACK_NAMES, *_listed(settings.public_hosts)]
    if settings.host not in LISTEN_ON_ALL:
        names.append(f"[{settings.host}]" if ":" in settings.host else settings.host)
    hosts = [host for name in names for host in _with_any_port(name)]
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[*origins, *_listed(settings.allowed_origins)],
    )


def _listed(values: str) -> list[str]:
    return [value.strip().rstrip("/") for value in values.split(",") if value.strip()]


def _with_any_port(host: str) -> list[str]:
    """A name as a Host header carries it: alone (the scheme's port) or with any port; a
    host:port stays as it is."""
    has_port = host.rsplit("]", 1)[-1].count(":") == 1
    return [host] if has_port else [host, f"{host}:*"]


def mount_mcp(app: FastAPI) -> Callable[[], AbstractAsyncContextManager[None]]:
    """Serve MCP at /mcp; returns what the app's lifespan must run while it serves."""
    server = build_server(_loopback_client(app))
    security = transport_security(app.state.gateway_settings)
    transport = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        # stateless: each request carries its own key and stands alone, so any gateway replica
        # can serve it and a restart loses nothing
        stateless_http=True,
        max_request_body_size=mcp_body_limit(app.state.gateway_settings),
        transport_security=security,  # the door checks first, to say what to do
    )

    door = _Door(transport, TransportSecurityMiddleware(security))
    app.add_route(MCP_PATH, door, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    return server.session_manager.run


class _Door:
    """Refuses a request from a foreign Host or Origin, or without a valid key, before MCP reads
    a byte of it. A class, not a function: Starlette hands a plain function a Request, an ASGI
    app the raw scope."""

    def __init__(self, transport: ASGIApp, security: TransportSecurityMiddleware) -> None:
        self.transport = transport
        self.security = security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            await self._check_host_and_origin(request)
            await require_user(request, None)
        except HTTPException as refused:
            body = JSONResponse({"detail": refused.detail}, refused.status_code, refused.headers)
            await body(scope, receive, send)
            return
        await self.transport(scope, receive, send)

    async def _check_host_and_origin(self, request: Request) -> None:
        """The SDK's own check, with words that say what to do (it answers 421 or 403 in one)."""
        refused = await self.security.validate_request(request)
        if refused is None:
            return
        if refused.status_code == 421:
            raise HTTPException(421, HOST_REFUSED.format(host=request.headers.get("host", "")))
        raise HTTPException(403, ORIGIN_REFUSED.format(origin=request.headers.get("origin", "")))


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
