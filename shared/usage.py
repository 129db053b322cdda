"""Recording of every model call: which role, provider and model, tokens, latency, cost, and the
file or turn it served (taken from the work context the pipeline step sets)."""

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from uuid import UUID

from shared.config import model_settings
from shared.metrics.models import observe_model_call

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkContext:
    """What a model call is serving."""

    user_id: UUID
    file_id: UUID | None = None
    turn_id: UUID | None = None


@dataclass(frozen=True)
class ModelCall:
    role: str
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    cost_usd: float
    # ok | invalid (output failed validation) | error | fallback (the offline rule, in place of
    # a model whose answer stayed invalid)
    outcome: str = "ok"


Recorded = tuple[ModelCall, WorkContext | None]
UsageSink = Callable[[Sequence[Recorded]], Awaitable[None]]

current_work: ContextVar[WorkContext | None] = ContextVar("current_work", default=None)
# the calls a pipeline step made that are not written yet (None: write each call at once)
_held: ContextVar[list[Recorded] | None] = ContextVar("held_calls", default=None)
# set while a call serves several callers: its records are kept for them (captured_calls)
_captured: ContextVar[list[ModelCall] | None] = ContextVar("captured_calls", default=None)
_sink: UsageSink | None = None
LOCAL_PROVIDER = "local"


def set_usage_sink(sink: UsageSink | None) -> None:
    """Where this process records calls (the database, in services); None records nothing."""
    global _sink
    _sink = sink


@asynccontextmanager
async def calls_held() -> AsyncIterator[None]:
    """Hold the in-process model calls made inside and write them together when it ends,
    however it ends: one round trip per pipeline step instead of one per call (a step that is
    killed loses the rows of its in-process calls, which cost nothing)."""
    token = _held.set([])
    try:
        yield
    finally:
        await record_held_calls()
        _held.reset(token)


async def record_held_calls() -> None:
    """Write the held calls now: before a step's result becomes visible (its next event, a
    ready file), so whoever sees the result finds its calls recorded too."""
    held = _held.get()
    if held:
        calls = held.copy()
        held.clear()
        await _write(calls)


async def _write(calls: Sequence[Recorded]) -> None:
    if _sink is None:
        return
    try:
        await _sink(calls)
    except Exception:
        logger.warning("could not record %d model calls", len(calls), exc_info=True)


@contextmanager
def working_on(work: WorkContext) -> Iterator[None]:
    token = current_work.set(work)
    try:
        yield
    finally:
        current_work.reset(token)


async def record_call(
    *,
    role: str,
    provider: str,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    started: float,
    outcome: str = "ok",
) -> None:
    """Record one call that began at `started` (time.monotonic()); never fails the caller."""
    call = ModelCall(
        role=role,
        provider=provider,
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_ms=round(1000 * (time.monotonic() - started)),
        cost_usd=model_settings().cost_usd(model, prompt_tokens, completion_tokens),
        outcome=outcome,
    )
    observe_model_call(call)  # in memory, for /metrics: costs no round trip
    captured = _captured.get()
    if captured is not None:
        captured.append(call)
    else:
        await _keep(call)


async def _keep(call: ModelCall) -> None:
    """Hold a local call with the step's others; write a remote one at once."""
    held = _held.get()
    # a remote call is paid for: its row is written at once, so a crash never loses its cost
    if held is not None and call.provider == LOCAL_PROVIDER:
        held.append((call, current_work.get()))
    else:
        await _write([(call, current_work.get())])


@contextmanager
def calls_captured() -> Iterator[list[ModelCall]]:
    """Keep the calls made inside instead of recording them: they served several callers, and
    each records its share in its own work context (record_share)."""
    captured: list[ModelCall] = []
    token = _captured.set(captured)
    try:
        yield captured
    finally:
        _captured.reset(token)


async def record_share(calls: Sequence[ModelCall], share: float) -> None:
    """Record `share` (0-1) of each call's tokens and cost for the work in this context; its
    latency is the whole call's, which the caller waited for."""
    for call in calls:
        await _keep(
            replace(
                call,
                prompt_tokens=round(call.prompt_tokens * share),
                completion_tokens=round(call.completion_tokens * share),
                cost_usd=call.cost_usd * share,
            )
        )
