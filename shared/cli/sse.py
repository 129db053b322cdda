"""The user's progress event stream, read with httpx-sse, reconnecting (with Last-Event-ID) when
it drops; a server that stays away is announced and retried through the Link."""

import asyncio
import json

import httpx
from httpx_sse import EventSource

from shared.cli.client import CliError
from shared.cli.link import Link
from shared.cli.tracker import Tracker
from shared.gateway_replies import api_error

RECONNECT_SECONDS = 0.5  # a dropped stream is opened again this soon, silently
# progress events may be minutes apart, but the gateway sends a ping every 15 s (PING_SECONDS
# in services/gateway/dispatch/streams.py): three missed pings mean a half-dead connection
PING_SECONDS = 15.0
STREAM_TIMEOUT = httpx.Timeout(10.0, read=3 * PING_SECONDS)


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


async def follow_events(
    http: httpx.AsyncClient, stream: httpx.Response, tracker: Tracker, link: Link
) -> None:
    """Feed progress events to the tracker, reconnecting (with Last-Event-ID) if dropped, until
    the link gives up (ConnectionLost)."""
    last_id = None
    while True:
        last_id = await _read_events(stream, tracker, last_id)
        stream = await _reconnect(http, last_id, link)


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


async def _reconnect(http: httpx.AsyncClient, last_id: str | None, link: Link) -> httpx.Response:
    """The stream again; while the server is away, this is the try the user sees retried."""
    await asyncio.sleep(RECONNECT_SECONDS)
    while True:
        try:
            stream = await open_event_stream(http, last_id)
        except (httpx.HTTPError, CliError) as exc:
            await link.retry_after(exc)
        else:
            link.succeeded()
            return stream


def _deliver(data: str, tracker: Tracker) -> None:
    try:
        payload = json.loads(data)
    except ValueError:
        return
    if isinstance(payload, dict):
        tracker.on_event(payload)
