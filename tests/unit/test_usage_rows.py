"""Model-call rows of a pipeline step: its in-process calls are written together, once, when it
publishes or ends (however it ends); a paid remote call is written at once."""

import time
from collections.abc import Iterator, Sequence
from uuid import uuid4

import pytest

from shared.usage import (
    LOCAL_PROVIDER,
    ModelCall,
    WorkContext,
    calls_held,
    record_call,
    record_held_calls,
    set_usage_sink,
    working_on,
)

Writes = list[list[tuple[str, WorkContext | None]]]


@pytest.fixture
def writes() -> Iterator[Writes]:
    """Each write the sink received: the (role, work) of its calls."""
    received: Writes = []

    async def sink(calls: Sequence[tuple[ModelCall, WorkContext | None]]) -> None:
        received.append([(call.role, work) for call, work in calls])

    set_usage_sink(sink)
    yield received
    set_usage_sink(None)


async def call(role: str, provider: str = LOCAL_PROVIDER) -> None:
    await record_call(
        role=role,
        provider=provider,
        model="m",
        prompt_tokens=1,
        completion_tokens=1,
        started=time.monotonic(),
    )


async def test_a_steps_in_process_calls_are_one_write_at_its_end(writes: Writes) -> None:
    work = WorkContext(user_id=uuid4(), file_id=uuid4())
    with working_on(work):
        async with calls_held():
            await call("classify")
            await call("chunk")
            assert writes == []
    assert writes == [[("classify", work), ("chunk", work)]]


async def test_held_calls_are_written_before_the_step_shows_a_result(writes: Writes) -> None:
    async with calls_held():
        await call("compress")
        await record_held_calls()
        assert [[role for role, _ in write] for write in writes] == [["compress"]]
        await call("verify")
    assert [[role for role, _ in write] for write in writes] == [["compress"], ["verify"]]


async def test_a_failed_step_still_records_its_calls(writes: Writes) -> None:
    with pytest.raises(RuntimeError):
        async with calls_held():
            await call("embed")
            raise RuntimeError("the step failed")
    assert [[role for role, _ in write] for write in writes] == [["embed"]]


async def test_a_remote_call_is_written_at_once(writes: Writes) -> None:
    async with calls_held():
        await call("compress", provider="openai-compatible")
        assert [[role for role, _ in write] for write in writes] == [["compress"]]


async def test_outside_a_step_each_call_is_written_at_once(writes: Writes) -> None:
    await call("answer")
    await call("check")
    assert [[role for role, _ in write] for write in writes] == [["answer"], ["check"]]
