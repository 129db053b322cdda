"""Fair use: per-user request budgets, failed-key attempts per client address, open streams per
user. All counted in this process's memory: with N gateway replicas each one counts on its own,
so a user may reach N times these limits (the storage quota, in quota.py, is in the database)."""

import math
from collections import Counter
from dataclasses import dataclass
from uuid import UUID

from fastapi import HTTPException, Request
from sse_starlette import EventSourceResponse
from starlette.types import Receive, Scope, Send

from services.gateway.fair_use.token_bucket import TokenBuckets
from shared.config import GatewaySettings

EXPENSIVE = "chat, upload, search, context preview and import"


def _rate_limited(detail: str, wait_seconds: float) -> HTTPException:
    seconds = max(1, math.ceil(wait_seconds))
    return HTTPException(
        429,
        f"{detail} Try again in {seconds} s.",
        headers={"Retry-After": str(seconds)},
    )


def _spend(buckets: TokenBuckets, user_id: UUID, what: str, setting: str) -> None:
    if wait := buckets.take(user_id):
        raise _rate_limited(
            f"Too many {what}: at most {buckets.per_minute} a minute per user ({setting}).",
            wait,
        )


class StreamSlots:
    """At most `per_user` open streams per user (0: no limit)."""

    def __init__(self, per_user: int) -> None:
        self.per_user = per_user
        self._open: Counter[UUID] = Counter()

    def take(self, user_id: UUID) -> "StreamSlot":
        if self.per_user and self._open[user_id] >= self.per_user:
            raise HTTPException(
                429,
                f"Too many open streams: at most {self.per_user} at once per user"
                " (ARTISAN_MAX_STREAMS_PER_USER). Close one — another tab, or a stream you no"
                " longer read — and try again.",
            )
        self._open[user_id] += 1
        return StreamSlot(self, user_id)

    def _release(self, user_id: UUID) -> None:
        self._open[user_id] -= 1
        if self._open[user_id] <= 0:
            del self._open[user_id]


@dataclass
class StreamSlot:
    slots: StreamSlots
    user_id: UUID
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.slots._release(self.user_id)


class HeldEventSource(EventSourceResponse):
    """An SSE response that holds a stream slot until it ends however it ends: finished, client
    gone, send timeout or server shutdown (each ends the ASGI call)."""

    def __init__(self, *args: object, slot: StreamSlot, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slot.release()


class FairUse:
    """The gateway's limits, one instance per process (app.state.fair_use)."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.requests = TokenBuckets(settings.rate_limit_per_minute)
        self.expensive = TokenBuckets(settings.rate_limit_expensive_per_minute)
        self.auth_failures = TokenBuckets(settings.auth_failures_per_minute)
        self.streams = StreamSlots(settings.max_streams_per_user)

    def charge(self, user_id: UUID) -> None:
        _spend(self.requests, user_id, "requests", "ARTISAN_RATE_LIMIT_PER_MINUTE")

    def charge_expensive(self, user_id: UUID) -> None:
        setting = "ARTISAN_RATE_LIMIT_EXPENSIVE_PER_MINUTE"
        _spend(self.expensive, user_id, f"{EXPENSIVE} requests", setting)

    def check_address(self, address: str) -> None:
        """Refuse every key from an address that sent too many invalid ones: a correct guess
        must not be told apart while it is blocked."""
        if wait := self.auth_failures.wait(address):
            raise _rate_limited(
                f"Too many requests with an invalid API key from your address (at most"
                f" {self.auth_failures.per_minute} a minute).",
                wait,
            )

    def record_auth_failure(self, address: str) -> None:
        self.auth_failures.take(address)


def client_address(request: Request) -> str:
    """The client's IP; behind a reverse proxy, uvicorn takes it from X-Forwarded-For when the
    proxy's address is in FORWARDED_ALLOW_IPS (default 127.0.0.1)."""
    return request.client.host if request.client else "unknown"
