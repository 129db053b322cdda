"""`artisan mcp`: Artisan's MCP server over stdio, for Claude Desktop and other local MCP clients.
It calls the running gateway with the local key, as every other CLI command does; stdout is the
protocol's, so nothing else may print there."""

import sys

import httpx
from mcp.server.mcpserver import Context

from shared.cli.client import CliError, Connection, api_key, gateway_url
from shared.mcp_server.rest import ANSWER_TIMEOUT
from shared.mcp_server.tools import build_server


def serve_stdio() -> int:
    try:
        connection = Connection(gateway_url(), api_key())
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    def client_for(_: Context) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=connection.url, headers=connection.headers, timeout=ANSWER_TIMEOUT
        )

    build_server(client_for).run("stdio")  # until the client closes stdin
    return 0
