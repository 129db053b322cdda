"""The user's progress event stream: a text/event-stream parser and a reconnecting reader."""

import asyncio
import contextlib
import json
from dataclasses import dataclass

import httpx

from shared.cli.client import CliError, api_error
from shared.cli.tracker import Tracker

RECONNECT_SECONDS = 0.5
STREAM_TIMEOUT = httpx.Timeout(10.0, read=None)  # progress events may be minutes apart


@dataclass
class ServerSentEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None


class SseParser:
    """Incremental text/event-stream parser: the WHATWG rules Artisan's stream needs."""

    def __init__(self, last_event_id: str | None = None) -> None:
        self.last_event_id = last_event_id
        self._event, self._data = "", list[str]()

    def feed(self, line: str) -> ServerSentEvent | None:
        """Take one line (without its line ending); returns the event a blank line completes."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):  # a comment: keep-alive pings
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        event, data = self._event or "message", self._data
        self._event, self._data = "", []
        if not data:  # per the spec, an event without data is dropped
            return None
        return ServerSentEvent(event=event, data="\n".join(data), id=self.last_event_id)


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
    """Deliver the stream's progress events until it ends; returns the last event id seen."""
    parser = SseParser(last_id)  # a fresh one: a half-received event must not leak into the next
    try:
        async for line in stream.aiter_lines():
            if (event := parser.feed(line)) and event.event == "progress":
                _deliver(event.data, tracker)
    except httpx.HTTPError:
        pass  # dropped: the caller reconnects, and the gateway first resends the current state
    finally:
        await stream.aclose()
    return parser.last_event_id


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
