"""Retries with back-off that honour Retry-After, for clients whose own retries do not (voyageai
retries neither 500s nor dropped connections and ignores Retry-After). The openai client already
does this itself; see chat.py."""

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

# the same curve the openai client uses, so every remote provider backs off alike
INITIAL_DELAY_SECONDS = 0.5
MAX_DELAY_SECONDS = 8.0
MAX_RETRY_AFTER_SECONDS = 120.0  # a server asking for longer is better retried by the bus


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested wait from `retry-after-ms` or `retry-after` (seconds or a date)."""
    if not headers:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            return float(value) / divisor
        except ValueError:
            pass
    date = lowered.get("retry-after")
    parsed = email.utils.parsedate_tz(date) if date else None
    return None if parsed is None else email.utils.mktime_tz(parsed) - time.time()


def backoff_seconds(retries_taken: int, headers: Mapping[str, str] | None = None) -> float | None:
    """How long to wait before the next attempt; None when the server asks for too long."""
    requested = retry_after_seconds(headers)
    if requested is not None and math.isfinite(requested) and requested > 0:
        return requested if requested <= MAX_RETRY_AFTER_SECONDS else None
    delay = min(INITIAL_DELAY_SECONDS * 2.0**retries_taken, MAX_DELAY_SECONDS)
    return delay * (1 - 0.25 * random.random())  # jitter spreads replicas' retries apart


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    max_retries: int,
    is_transient: Callable[[BaseException], bool],
    headers_of: Callable[[BaseException], Mapping[str, str] | None],
) -> T:
    """Run `attempt`, retrying transient failures up to `max_retries` times; re-raise the last."""
    for retries_taken in range(max_retries + 1):
        try:
            return await attempt()
        except Exception as exc:
            if retries_taken == max_retries or not is_transient(exc):
                raise
            delay = backoff_seconds(retries_taken, headers_of(exc))
            if delay is None:
                raise
            await asyncio.sleep(delay)
    raise AssertionError("unreachable: the last attempt returns or raises")
