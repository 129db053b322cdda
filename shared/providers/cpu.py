"""Local models' work on a big input runs in a worker thread, one such call at a time per
process. On the event loop, chunking a 2 MB file took 5 s in which nothing else of the service
ran: not the other messages, not the progress events, not the heartbeats that keep JetStream
from redelivering the message. In a thread, the loop still gets the interpreter every few
milliseconds; one at a time, the first big file is done as soon as it would be alone."""

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar
from weakref import WeakKeyDictionary

# about 20 ms of chunking: a shorter call costs less on the loop than a thread hop would
THREAD_FROM_CHARS = 8_000

P = ParamSpec("P")
T = TypeVar("T")
_one_at_a_time: "WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]" = WeakKeyDictionary()


async def run_sized(size: int, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`work(*args, **kwargs)`, for an input of `size` characters: on the loop when small,
    else in a thread once the process's previous big call is done."""
    if size < THREAD_FROM_CHARS:
        return work(*args, **kwargs)
    # a lock per loop: a process may run several loops one after another (tests, the CLI)
    lock = _one_at_a_time.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with lock:
        return await asyncio.to_thread(work, *args, **kwargs)
