"""The command table's `artisan chat`, `artisan ask` and `artisan mcp`, each with its options."""

import asyncio
import json
import re
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from shared.config import REPO_ROOT
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import VENV, Tour

MCP_TOOL_ROW = re.compile(r"^\| `(\w+)\(", re.MULTILINE)


def _conversations(tour: Tour) -> list[dict[str, Any]]:
    with tour.api() as api:
        return api.get("/v1/conversations").json()["items"]


def chat_options(tour: Tour, shown: Shown) -> None:
    """--new starts a conversation with the persona named; --conversation ID goes on in that
    one, with its persona."""
    before = {c["id"] for c in _conversations(tour.running())}
    tour.shell("artisan chat --persona vlad --new", stdin="What was gross margin in Q2?\n\n")
    [started] = [c for c in _conversations(tour) if c["id"] not in before]
    assert (started["persona"], started["turn_count"]) == ("vlad", 1), started
    again = tour.shell(
        f"artisan chat --conversation {started['id']}", stdin="And net revenue retention?\n\n"
    )
    assert "Talking to Vlad" in again.stdout, again.stdout
    [now] = [c for c in _conversations(tour) if c["id"] == started["id"]]
    assert now["turn_count"] == 2, now


def ask_options(tour: Tour, shown: Shown) -> None:
    """--attach keeps the answer to that file, --conversation puts the turn in that one, and
    --json prints the whole `done` event."""
    pricing = tour.running().file_id("pricing-decision.md")
    [conversation] = [c for c in _conversations(tour) if c["persona"] == "vlad"][:1]
    asked = tour.shell(
        'artisan ask "Why did we move to usage-based tiers?" --persona vlad'
        f" --attach {pricing} --conversation {conversation['id']} --json"
    )
    done = json.loads(asked.stdout)
    assert done["persona"] == "vlad" and done["citations"], done
    assert {c["file_id"] for c in done["citations"]} == {pricing}, done["citations"]
    [now] = [c for c in _conversations(tour) if c["id"] == conversation["id"]]
    assert now["turn_count"] == conversation["turn_count"] + 1, now


def mcp(tour: Tour, shown: Shown) -> None:
    """What Claude Desktop starts: the tools the MCP guide's table lists, over stdio, with the
    local user's key from ~/.artisan."""
    listed = set(MCP_TOOL_ROW.findall((REPO_ROOT / "docs" / "mcp.md").read_text()))
    tools, files = asyncio.run(_mcp_session(tour.running()))
    assert tools == listed, (tools, listed)
    assert {f["filename"] for f in files} == {f["filename"] for f in tour.files()}


async def _mcp_session(tour: Tour) -> tuple[set[str], list[dict[str, Any]]]:
    server = StdioServerParameters(
        command=str(VENV / "bin" / "artisan"), args=["mcp"], env=tour.env, cwd=tour.checkout
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        result = await session.call_tool("list_files", {})
        assert not result.is_error, result.content
        return tools, json.loads(result.content[0].text)["files"]
