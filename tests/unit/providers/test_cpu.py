"""Local models' work on big inputs leaves the event loop free, one big call at a time, below
the loop's priority."""

import asyncio
import contextvars
import os
import sys
import threading

import pytest

from shared.providers.cpu import MODEL_THREAD_NICE_STEPS, THREAD_FROM_CHARS, run_sized


async def test_small_work_runs_on_the_loop_and_big_work_in_a_thread() -> None:
    loop_thread = threading.get_ident()
    assert await run_sized(THREAD_FROM_CHARS - 1, threading.get_ident) == loop_thread
    assert await run_sized(THREAD_FROM_CHARS, threading.get_ident) != loop_thread


async def test_the_loop_runs_while_a_big_call_works() -> None:
    loop_ran = threading.Event()

    async def tick() -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        loop_ran.set()

    ticking = asyncio.create_task(tick())
    # the work waits for the loop to have run meanwhile: on the loop itself it never would
    assert await run_sized(THREAD_FROM_CHARS, loop_ran.wait, 10)
    await ticking


async def test_big_calls_take_turns() -> None:
    started: list[str] = []
    first_started, first_may_end = threading.Event(), threading.Event()

    def work(name: str) -> str:
        started.append(name)
        if name == "first":
            first_started.set()
            first_may_end.wait(10)
        return name

    first = asyncio.create_task(run_sized(THREAD_FROM_CHARS, work, "first"))
    second = asyncio.create_task(run_sized(THREAD_FROM_CHARS, work, "second"))
    assert await asyncio.to_thread(first_started.wait, 10)
    await asyncio.sleep(0.2)  # time for the second to start, were it allowed to
    assert started == ["first"]
    first_may_end.set()
    assert await asyncio.gather(first, second) == ["first", "second"]
    assert started == ["first", "second"]


@pytest.mark.skipif(sys.platform != "linux", reason="a thread's own nice value is Linux's")
async def test_big_calls_run_below_the_loops_priority() -> None:
    def own_nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    loop_nice = own_nice()
    below = min(19, loop_nice + MODEL_THREAD_NICE_STEPS)
    assert await run_sized(THREAD_FROM_CHARS, own_nice) == below
    assert await run_sized(THREAD_FROM_CHARS - 1, own_nice) == loop_nice


async def test_big_calls_see_the_callers_context() -> None:
    user = contextvars.ContextVar[str]("user")
    user.set("ada")
    assert await run_sized(THREAD_FROM_CHARS, user.get) == "ada"
