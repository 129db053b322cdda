"""The user's progress event stream, read with httpx-sse, reconnecting (with Last-Event-ID) when
it drops."""

import asyncio
import contextlib
import json

import httpx
from httpx_sse import EventSource

from shared.cli.client import CliError, api_error
from shared.cli.tracker import Tracker

RECONNECT_SECONDS = 0.5
STREAM_TIMEOUT = httpx.Timeout(10.0, read=None)  # progress events may be minutes apart


async def open_event_stream(http: httpx.AsyncClient, last_id: str | None = None) -> httpx.Response:
    """The user's progress stream, connected: the server has accepted it when this returns."""
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if last_id:
        headers["Last-Event-ID"] = last_id
    request = http.build_request("GET", "/v1/events", headers=headers, timeout=STREAM_TIMEOUT)
    response = await http.send(request, stream=True)
    if response.status_code != 200:
        await response.aread()
        await response.aclose()
        raise CliError(api_error(response))
    return response


async def follow_events(http: httpx.AsyncClient, stream: httpx.Response, tracker: Tracker) -> None:
    """Feed progress events to the tracker forever, reconnecting (with Last-Event-ID) if dropped."""
    last_id = None
    while True:
        last_id = await _read_events(stream, tracker, last_id)
        stream = await _reconnect(http, last_id)


async def _read_events(stream: httpx.Response, tracker: Tracker, last_id: str | None) -> str | None:
    """Deliver the stream's progress events until it ends; returns the last event id seen.
    Each connection gets its own decoder: a half-received event never leaks into the next."""
    try:
        async for event in EventSource(stream).aiter_sse():
            last_id = event.id or last_id
            if event.event == "progress":
                _deliver(event.data, tracker)
    except httpx.HTTPError:
        pass  # dropped: the caller reconnects, and the gateway first resends the current state
    finally:
        await stream.aclose()
    return last_id


async def _reconnect(http: httpx.AsyncClient, last_id: str | None) -> httpx.Response:
    while True:
        await asyncio.sleep(RECONNECT_SECONDS)
        with contextlib.suppress(httpx.HTTPError, CliError):  # meanwhile, the record poll runs
            return await open_event_stream(http, last_id)


def _deliver(data: str, tracker: Tracker) -> None:
    try:
        payload = json.loads(data)
    except ValueError:
        return
    if isinstance(payload, dict):
        tracker.on_event(payload)
