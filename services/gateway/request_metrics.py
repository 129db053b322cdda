"""The gateway's requests as metrics: how many and how long, by route template
(`/v1/files/{file_id}`, never a file's id) and status."""

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from prometheus_client import Counter, Histogram

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180)

REQUESTS = Counter(
    "artisan_http_requests",
    "Requests to the gateway by method, route template and status",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "artisan_http_request_duration_seconds",
    "Seconds from a request to the end of its response, by method and route template (an SSE"
    " stream's: as long as it stayed open)",
    ["method", "route"],
    buckets=DURATION_BUCKETS,
)


def route_label(scope: Scope) -> str:
    """The template of the route that answered; a path no route matched is `unmatched`, so a
    scanner's made-up paths add no series."""
    route = scope.get("route")
    return getattr(route, "path", None) or ("/" if route is not None else "unmatched")


class RequestMetrics:
    """Counts and times every HTTP request (pure ASGI: streamed responses pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # what the client gets if the app raises before it answers

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        started = time.perf_counter()
        try:
            await self.app(scope, receive, send_and_note)
        finally:
            method = scope["method"] if scope["method"] in METHODS else "other"
            route = route_label(scope)
            REQUESTS.labels(method, route, str(status)).inc()
            REQUEST_SECONDS.labels(method, route).observe(time.perf_counter() - started)
