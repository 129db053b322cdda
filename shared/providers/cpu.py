"""Local models' work on any but a small input runs in the process's model thread, one call at
a time, below the event loop's priority.

On the event loop, chunking a 2 MB file took 5 s in which nothing else of the service ran: not
the other messages, not the progress events, not the heartbeats that keep JetStream from
redelivering the message. Shorter calls did the same on a smaller scale: with eight uploads in
flight, a progress event waited behind the CPU work of the worker's other messages, 40 ms at the
99th percentile. In the model thread, the loop gets the interpreter back within the switch
interval, and on Linux the thread's lower priority lets the loop's thread take the CPU first.
One at a time, the first big file is done as soon as it would be alone.
"""

import asyncio
import contextvars
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import ParamSpec, TypeVar

# about 2 ms of chunking: a shorter call costs the loop less than the hop to the thread would
# (at 4,000 the abstracts benchmark ran a little faster, and progress events were 5 ms later)
THREAD_FROM_CHARS = 2_000
# how much lower the model thread's priority is than its process's (nice steps)
MODEL_THREAD_NICE_STEPS = 10
# the longest the loop's thread waits for the interpreter while the model thread works (5 ms
# by default); the model thread then gives it up sooner, at about no cost to its own work
LOOP_WAITS_AT_MOST_SECONDS = 0.001

P = ParamSpec("P")
T = TypeVar("T")
logger = logging.getLogger(__name__)


def _below_the_loop() -> None:
    """Lower this thread's priority, and the loop's wait for the interpreter. On Linux a nice
    value is a thread's own; elsewhere it would be the whole process's, loop included, so there
    the thread keeps its process's."""
    sys.setswitchinterval(LOOP_WAITS_AT_MOST_SECONDS)
    if sys.platform != "linux":
        return
    try:
        os.nice(MODEL_THREAD_NICE_STEPS)
    except OSError:
        logger.debug("could not lower the model thread's priority", exc_info=True)


_MODEL_THREAD_NAME = "local-model"
_model_thread = ThreadPoolExecutor(
    max_workers=1, thread_name_prefix=_MODEL_THREAD_NAME, initializer=_below_the_loop
)


async def run_sized(size: int, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`work(*args, **kwargs)`, for an input of `size` characters: on the loop when small, else
    in the model thread once the process's earlier calls there are done."""
    if size < THREAD_FROM_CHARS:
        return work(*args, **kwargs)
    return await run_in_model_thread(work, *args, **kwargs)


async def run_in_model_thread(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`work(*args, **kwargs)` in the model thread, once the process's earlier calls there are
    done, whatever its size (a neural model's smallest call is already milliseconds)."""
    call = partial(contextvars.copy_context().run, work, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_model_thread, call)


def load_in_model_thread(load: Callable[[], T]) -> T:
    """`load()` in the model thread, waited for: the threads a library starts there (ONNX
    Runtime's pool) inherit its lower priority, and the loop's thread starts none."""
    if threading.current_thread().name.startswith(_MODEL_THREAD_NAME):
        return load()  # already there: waiting on its own queue would never end
    return _model_thread.submit(load).result()
