"""Local models' work on big inputs leaves the event loop free, one big call at a time."""

import asyncio
import threading

from shared.providers.cpu import THREAD_FROM_CHARS, run_sized


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
