"""The CLI's connection to Artisan while it follows work: a lost server is said at once, retried
with a backoff the user sees, and given up after a bound (ARTISAN_RECONNECT_SECONDS, 2 minutes by
default), so a command never waits in silence for a server that is gone."""

import asyncio
import contextlib
import os
import time
from collections.abc import Callable

import httpx

from shared.cli.client import CliError, describe_error

RECONNECT_ENV = "ARTISAN_RECONNECT_SECONDS"
DEFAULT_RECONNECT_SECONDS = 120.0
FIRST_RETRY_SECONDS = 2.0
MAX_RETRY_SECONDS = 30.0


class ConnectionLost(CliError):
    """Artisan did not answer for longer than the bound; the command stops."""


def reconnect_seconds() -> float:
    """How long to keep retrying a lost server: ARTISAN_RECONNECT_SECONDS, else 2 minutes."""
    raw = os.environ.get(RECONNECT_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_RECONNECT_SECONDS
    except ValueError:
        raise CliError(f"{RECONNECT_ENV} must be a number of seconds, not {raw!r}") from None


def is_connection_failure(exc: BaseException) -> bool:
    """The server could not be reached or stopped answering (not a refusal it sent)."""
    return isinstance(exc, httpx.TransportError)


class Link:
    """Shared by everything one command sends: the first failure of an outage is announced, the
    prober (the progress stream) announces each retry, any success ends the outage."""

    def __init__(
        self,
        url: str,
        say: Callable[[str], None],
        give_up_after: float | None = None,
    ) -> None:
        self.url, self.say, self.first_retry = url, say, FIRST_RETRY_SECONDS
        self.give_up_after = reconnect_seconds() if give_up_after is None else give_up_after
        self.lost_since: float | None = None
        self.retries = 0
        self.back = asyncio.Event()
        self.back.set()

    @property
    def lost(self) -> bool:
        return self.lost_since is not None

    async def retry_after(self, error: BaseException, *, announce: bool = True) -> None:
        """After a failed request: say so, wait the backoff; ConnectionLost past the bound.
        Others' waits end early when any request gets through."""
        delay = self.failed(error, announce=announce)
        if announce:  # the prober's tries set the pace; the others retry at it
            self.retries += 1
        if not self.back.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.back.wait(), delay)

    def failed(self, error: BaseException, *, announce: bool = True) -> float:
        """Record a failure; the seconds to wait before the next try."""
        now = time.monotonic()
        if self.lost_since is None:
            self.lost_since, self.retries = now, 0
            self.back.clear()
            delay = self.next_delay()
            self.say(
                f"lost the connection to Artisan at {self.url} ({describe_error(error)});"
                f" retrying in {_seconds(delay)}…"
            )
            return delay
        down_for = now - self.lost_since
        if down_for >= self.give_up_after:
            raise ConnectionLost(
                f"Artisan at {self.url} has not answered for {_duration(down_for)}; stopped"
                f" waiting (set {RECONNECT_ENV} to wait longer)"
            )
        delay = min(self.next_delay(), self.give_up_after - down_for + 0.1)
        if announce:
            self.say(
                f"still no answer from Artisan at {self.url} after {_duration(down_for)};"
                f" retrying in {_seconds(delay)}…"
            )
        return delay

    def next_delay(self) -> float:
        return min(MAX_RETRY_SECONDS, self.first_retry * 2**self.retries)

    def succeeded(self) -> None:
        if self.lost_since is not None:
            down_for = time.monotonic() - self.lost_since
            self.say(f"reconnected to Artisan at {self.url} after {_duration(down_for)}")
        self.lost_since, self.retries = None, 0
        self.back.set()


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.1f} s"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return _seconds(seconds)
    return f"{seconds / 60:.0f} minutes"
