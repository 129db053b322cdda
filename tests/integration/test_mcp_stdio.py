"""`artisan mcp` as Claude Desktop runs it: a subprocess speaking MCP over stdio, driven by the
`mcp` SDK's own stdio client, reaching the running gateway with the key `artisan up` saved."""

import asyncio
import json
import os
import sys
from asyncio.subprocess import DEVNULL, PIPE
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from shared.launcher.stack import Stack
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status
from tests.integration.test_mcp_http import TOOLS, key_of

pytestmark = pytest.mark.asyncio(loop_scope="session")
ARTISAN = str(Path(sys.executable).with_name("artisan"))


def artisan_mcp(data_dir: Path, gateway_url: str) -> StdioServerParameters:
    """The command a Claude Desktop config names; the key comes from the local key file."""
    env = {k: v for k, v in os.environ.items() if k != "ARTISAN_API_KEY"}
    env |= {"ARTISAN_DATA_DIR": str(data_dir), "ARTISAN_URL": gateway_url}
    return StdioServerParameters(command=ARTISAN, args=["mcp"], env=env)


async def test_artisan_mcp_serves_the_tools_over_stdio_with_the_local_key(
    system: Stack, api_client: httpx.AsyncClient, tmp_path: Path
) -> None:
    (tmp_path / "local-user.key").write_text(key_of(api_client).removeprefix("Bearer "))
    record = await upload(api_client, "pricing.md", documents.markdown())
    await wait_for_status(api_client, record["id"], "ready", timeout=60)

    async with (
        stdio_client(artisan_mcp(tmp_path, system.gateway_url)) as (read, write),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        assert {tool.name for tool in (await mcp.list_tools()).tools} == TOOLS
        result = await mcp.call_tool("search_files", {"query": "usage tiers", "limit": 3})
        assert not result.is_error, result.content
        hits = json.loads(result.content[0].text)["hits"]
        assert hits[0]["filename"] == "pricing.md" and hits[0]["file_id"] == record["id"]


async def test_artisan_mcp_without_a_key_says_how_to_get_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARTISAN_API_KEY"}
    env["ARTISAN_DATA_DIR"] = str(tmp_path)  # no local-user.key: `artisan up` never ran here
    process = await asyncio.create_subprocess_exec(
        ARTISAN, "mcp", env=env, stdout=PIPE, stderr=PIPE, stdin=DEVNULL
    )
    stdout, stderr = await process.communicate()
    assert process.returncode == 1 and stdout == b""
    assert b"no API key: start Artisan with `artisan up`" in stderr
