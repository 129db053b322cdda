"""Recording of every model call: which role, provider and model, tokens, latency, cost, and the
file or turn it served (taken from the work context the pipeline step sets)."""

import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
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
    outcome: str = "ok"  # ok | invalid (output failed validation) | error


UsageSink = Callable[[ModelCall, WorkContext | None], Awaitable[None]]

current_work: ContextVar[WorkContext | None] = ContextVar("current_work", default=None)
_sink: UsageSink | None = None


def set_usage_sink(sink: UsageSink | None) -> None:
    """Where this process records calls (the database, in services); None records nothing."""
    global _sink
    _sink = sink


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
    if _sink is None:
        return
    try:
        await _sink(call, current_work.get())
    except Exception:
        logger.warning("could not record a %s call to %s", role, model, exc_info=True)
