"""The upload command's progress stream (parsed by httpx-sse): progress events reach the tracker,
other events do not, and a dropped stream reconnects with the last event id it saw."""

import asyncio
from typing import cast

import httpx
import pytest

from shared.cli import sse
from shared.cli.link import Link
from shared.cli.tracker import Tracker

STREAMS = [
    # the first connection: two progress events (the second half-received when it drops)
    b'id: 4\nevent: progress\ndata: {"file_id": "f1", "progress": 40}\n\n'
    b": ping\n\nevent: other\ndata: {}\n\n"
    b'id: 5\nevent: progress\ndata: {"file_id": "f1", "progr',
    # the reconnection, resumed after id 4
    b'id: 6\nevent: progress\ndata: {"file_id": "f1", "progress": 100}\n\n',
]


class RecordingTracker:
    """Stands in for the Tracker: records the progress events delivered to it."""

    def __init__(self, wanted: int) -> None:
        self.events: list[dict] = []
        self.wanted, self.complete = wanted, asyncio.Event()

    def on_event(self, payload: dict) -> None:
        self.events.append(payload)
        if len(self.events) >= self.wanted:
            self.complete.set()


async def test_progress_reaches_the_tracker_and_a_drop_reconnects_after_the_last_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sse, "RECONNECT_SECONDS", 0)
    resumed_after: list[str | None] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        resumed_after.append(request.headers.get("last-event-id"))
        body = STREAMS[min(len(resumed_after) - 1, len(STREAMS) - 1)]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    tracker = RecordingTracker(wanted=2)
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(gateway), base_url="http://x"
    ) as http:
        stream = await sse.open_event_stream(http)
        link = Link("http://x", print)
        follower = asyncio.create_task(
            sse.follow_events(http, stream, cast(Tracker, tracker), link)
        )
        await asyncio.wait_for(tracker.complete.wait(), timeout=10)
        follower.cancel()
    assert tracker.events[:2] == [
        {"file_id": "f1", "progress": 40},
        {"file_id": "f1", "progress": 100},  # the half-received event never arrived
    ]
    assert resumed_after[:2] == [None, "4"]


async def test_a_refused_stream_is_an_error_with_the_gateways_reason() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"detail": "invalid API key"})

    async with httpx.AsyncClient(
        transport=httpx.MockTransport(refuse), base_url="http://x"
    ) as http:
        with pytest.raises(sse.CliError, match="invalid API key"):
            await sse.open_event_stream(http)
