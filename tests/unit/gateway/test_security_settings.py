"""The gateway's security headers and /mcp's Host and Origin rules, without a running system:
a 500 carries the headers too, /docs gets the policy its CDN pages need, and the configured
names are the ones /mcp accepts."""

import pytest
from fastapi.testclient import TestClient
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request

from services.gateway.main import create_app
from services.gateway.mcp.endpoint import transport_security
from services.gateway.security_headers import CONTENT_SECURITY_POLICY
from shared.config import GatewaySettings, InfraSettings

NEVER_DIALLED = InfraSettings(nats_url="nats://127.0.0.1:1", database_url="postgresql://x@y/z")


def test_an_unexpected_error_and_the_docs_carry_the_headers() -> None:
    app = create_app(NEVER_DIALLED, GatewaySettings())

    async def boom() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/boom", boom)
    client = TestClient(app, raise_server_exceptions=False)  # no lifespan: nothing is dialled
    failed = client.get("/boom")
    assert failed.status_code == 500
    assert failed.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert failed.headers["x-content-type-options"] == "nosniff"
    docs = client.get("/docs")
    assert docs.status_code == 200 and "https://cdn.jsdelivr.net" in docs.text
    assert (
        "script-src 'unsafe-inline' https://cdn.jsdelivr.net"
        in docs.headers["content-security-policy"]
    )
    assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]


async def verdict(settings: GatewaySettings, host: str, origin: str | None = None) -> int:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    request = Request({"type": "http", "method": "GET", "path": "/mcp", "headers": headers})
    refused = await TransportSecurityMiddleware(transport_security(settings)).validate_request(
        request
    )
    return 200 if refused is None else refused.status_code


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.1:8000", None, 200),
        ("localhost:9000", "http://localhost:9000", 200),  # Docker may map another port
        ("[::1]:8000", None, 200),
        ("artisan.example.com", "https://artisan.example.com", 200),
        ("artisan.example.com:8443", None, 200),
        ("10.0.0.5:8000", None, 200),  # ARTISAN_HOST
        ("tools.example.com:8443", "https://tools.example.com:8443", 200),
        ("tools.example.com:9000", None, 421),  # a name given with its port: that port only
        ("127.0.0.1:8000", "https://app.example.org", 200),  # ARTISAN_ALLOWED_ORIGINS
        ("attacker.example:8000", None, 421),
        ("127.0.0.1:8000", "https://evil.example", 403),
        ("127.0.0.1:8000", "null", 403),  # a sandboxed frame or a file:// page
    ],
)
async def test_the_configured_names_and_origins_are_the_ones_mcp_accepts(
    host: str, origin: str | None, status: int
) -> None:
    settings = GatewaySettings(
        host="10.0.0.5",
        public_hosts="artisan.example.com, tools.example.com:8443",
        allowed_origins="https://app.example.org/",
    )
    assert await verdict(settings, host, origin) == status
