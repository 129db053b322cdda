"""The REST calls the MCP tools make: one authenticated request each; a failure becomes a tool
error carrying the REST API's own message (what went wrong and what to do)."""

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from httpx_sse import EventSource
from mcp.server.mcpserver.exceptions import ToolError

from shared.gateway_replies import api_error

ANSWER_TIMEOUT = httpx.Timeout(10.0, read=300.0)  # tokens may pause while the model thinks
POLL_SECONDS = 0.5  # twice a second: well inside the REST API's per-user request budget
SETTLED = ("ready", "failed")
OnProgress = Callable[[dict[str, Any]], Awaitable[None]]


@contextmanager
def _reaching(http: httpx.AsyncClient) -> Iterator[None]:
    """Connection failures as tool errors that say what to check."""
    try:
        yield
    except (httpx.ConnectError, httpx.ConnectTimeout):
        unreachable = f"cannot reach Artisan at {http.base_url}: is `artisan up` running?"
        raise ToolError(unreachable) from None
    except httpx.HTTPError as exc:
        raise ToolError(f"talking to Artisan failed: {str(exc) or type(exc).__name__}") from exc


async def call(http: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> httpx.Response:
    with _reaching(http):
        response = await http.request(method, path, **kwargs)
    if not response.is_success:
        raise ToolError(api_error(response))
    return response


async def get_json(http: httpx.AsyncClient, path: str, **params: Any) -> Any:
    return (await call(http, "GET", path, params=params or None)).json()


async def ask(http: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/chat and read its answer stream to the end; the `done` payload."""
    with _reaching(http):
        async with http.stream("POST", "/v1/chat", json=body, timeout=ANSWER_TIMEOUT) as response:
            if response.status_code != 200:
                await response.aread()
                raise ToolError(api_error(response))
            async for event in EventSource(response).aiter_sse():
                if event.event == "done":
                    return json.loads(event.data)
                if event.event == "error":
                    detail = json.loads(event.data or "{}").get("detail")
                    raise ToolError(detail or "the answer failed; try again")
    raise ToolError("the answer stream ended before the answer was complete; try again")


async def wait_until_settled(
    http: httpx.AsyncClient, record: dict[str, Any], seconds: float, on_progress: OnProgress
) -> dict[str, Any]:
    """The file's record once it is ready or failed, or as it stands after `seconds`; each
    change of its progress goes to `on_progress` (the client's progress bar)."""
    deadline = time.monotonic() + seconds
    while record["status"] not in SETTLED and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        previous, record = record, await get_json(http, f"/v1/files/{record['id']}")
        if record["progress"] != previous["progress"]:
            await on_progress(record)
    return record
