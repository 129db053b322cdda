"""Per-process bounds on remote calls in flight, shared by every provider instance in the process.

A semaphore belongs to one event loop, so each loop gets its own; within a loop, all callers of
the same kind and size share one, however many provider objects exist.
"""

import asyncio
from weakref import WeakKeyDictionary

_semaphores: WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Semaphore]]
_semaphores = WeakKeyDictionary()


def call_slots(kind: str, size: int) -> asyncio.Semaphore:
    """The process-wide semaphore for `kind` ("llm", "embed") holding `size` calls in flight."""
    if size < 1:
        raise ValueError(f"a concurrency limit must be at least 1, not {size}")
    per_loop = _semaphores.setdefault(asyncio.get_running_loop(), {})
    if (kind, size) not in per_loop:
        per_loop[kind, size] = asyncio.Semaphore(size)
    return per_loop[kind, size]
