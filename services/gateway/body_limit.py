"""A request body limit enforced before anything reads the body — before parsing, before
authentication: FastAPI reads a JSON body whole before it checks the key, so without this an
anonymous 400 MB POST would sit in the gateway's memory. Uploads stream under their own limits
(upload_stream.py) and pass through."""

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
LimitFor = Callable[[str, str], int | None]  # (method, path) → bytes, or None: no limit here


class _TooLarge(Exception):
    pass


class BodyLimit:
    """413 for a body over the limit its route allows: at once when Content-Length says so, else
    as soon as the bytes received pass it (a chunked body declares no length)."""

    def __init__(self, app: ASGIApp, limit_for: LimitFor) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit_for(scope["method"], scope["path"]) if scope["type"] == "http" else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > limit:
            await _refuse(send, limit)
            return
        await self._limited(scope, receive, send, limit)

    async def _limited(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        received = 0
        refused = False
        started = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the app's answer to a body it never saw whole; ours follows
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not refused:
                raise
        if refused and not started:
            await _refuse(send, limit)


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _refuse(send: Send, limit: int) -> None:
    detail = (
        f"The request body is larger than this endpoint accepts ({limit:,} bytes);"
        " send less (for many turns, several imports)."
    )
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
