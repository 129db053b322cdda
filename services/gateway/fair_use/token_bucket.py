"""Token buckets, one per key (a user id, a client address): the arithmetic of fair use, no I/O.

A bucket holds up to `per_minute` tokens and refills continuously at `per_minute` a minute: a
client may burst that many requests, then goes on at the steady rate. The buckets live in the
process's memory, so with several gateway replicas each one counts on its own.
"""

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

# idle buckets are full again after a minute and forgotten once the table grows past this
_PRUNE_AT_LEAST = 1024


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """`per_minute` tokens per key; 0 means no limit."""

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: dict[Hashable, _Bucket] = {}
        self._prune_at = _PRUNE_AT_LEAST

    def take(self, key: Hashable) -> float:
        """Take a token: 0 when one was there, else the seconds until one will be (none taken)."""
        wait = self.wait(key)
        if wait == 0 and self.per_minute:
            self._buckets[key].tokens -= 1
        return wait

    def wait(self, key: Hashable) -> float:
        """Seconds until `key` has a token (0: it has one now); takes nothing."""
        if not self.per_minute:
            return 0.0
        bucket = self._refilled(key)
        if bucket.tokens >= 1:
            return 0.0
        return (1 - bucket.tokens) * 60 / self.per_minute

    def _refilled(self, key: Hashable) -> _Bucket:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            self._prune(now)
            bucket = self._buckets[key] = _Bucket(tokens=self.per_minute, updated=now)
        elapsed = max(0.0, now - bucket.updated)
        bucket.tokens = min(self.per_minute, bucket.tokens + elapsed * self.per_minute / 60)
        bucket.updated = now
        return bucket

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled (a full bucket is the same as none), so one client
        per key cannot grow the table without bound."""
        if len(self._buckets) < self._prune_at:
            return
        self._buckets = {
            key: bucket
            for key, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.updated) * self.per_minute / 60 < self.per_minute
        }
        self._prune_at = max(_PRUNE_AT_LEAST, 2 * len(self._buckets))

    def __len__(self) -> int:
        return len(self._buckets)
