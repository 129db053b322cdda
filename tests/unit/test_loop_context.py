"""A handler's pool, broker and message come from the context without a worker thread: a thread
hop per parameter per message cost more CPU than a small file's work."""

from typing import Any

import fast_depends.utils
import pytest
from faststream.nats import NatsBroker, TestNatsBroker
from faststream.nats.message import NatsMessage

from shared.bus import LoopContext


async def test_context_parameters_are_resolved_without_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broker = NatsBroker()
    seen: dict[str, object] = {}
    in_threads: list[object] = []
    run_in_threadpool = fast_depends.utils.run_in_threadpool

    async def watched(func: Any, *args: Any, **kwargs: Any) -> Any:
        in_threads.append(func)
        return await run_in_threadpool(func, *args, **kwargs)

    monkeypatch.setattr(fast_depends.utils, "run_in_threadpool", watched)

    @broker.subscriber("loop-context")
    async def handler(
        body: str,
        msg: NatsMessage = LoopContext("message"),
        pool: object = LoopContext("pool"),
        same_broker: NatsBroker = LoopContext("broker"),
    ) -> None:
        seen.update(body=body, msg=msg, pool=pool, broker=same_broker)

    async with TestNatsBroker(broker) as test_broker:
        test_broker.context.set_global("pool", "the pool")
        await test_broker.publish("hello", "loop-context")

    assert seen["body"] == "hello" and seen["pool"] == "the pool"
    assert isinstance(seen["msg"], NatsMessage) and seen["broker"] is broker
    assert in_threads == []
