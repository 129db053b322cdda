"""What every pipeline step shares: its consumer, bounded retries that end in a failed file (or
a turn whose journaling failed), stale-event drops and progress fan-out."""

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar, get_type_hints

import asyncpg
from faststream import Context
from faststream.exceptions import NackMessage
from faststream.nats import NatsBroker, NatsMessage, NatsRouter

from shared.bus import publish_progress, work_queue
from shared.config import pipeline_settings
from shared.contracts import Consumer, FileEvent, Subject, TurnEvent
from shared.db import files, turns
from shared.errors import ConfigurationChanged, PermanentError
from shared.progress import progress_event
from shared.usage import WorkContext, working_on

logger = logging.getLogger(__name__)
E = TypeVar("E", bound=FileEvent | TurnEvent)
# a pipeline step: the work one event asks for, given the pool and the broker to publish on
Step = Callable[[E, asyncpg.Pool, NatsBroker], Awaitable[None]]


async def announce(broker: NatsBroker, row: Mapping[str, Any] | None) -> None:
    """Tell SSE clients about a committed files row (nothing when the step was stale)."""
    if row is not None:
        await publish_progress(broker, row["user_id"], progress_event(row))
        # out now: the worker's other messages may keep the event loop busy with CPU work
        await broker.connection.flush()


async def fail_file(pool: asyncpg.Pool, broker: NatsBroker, event: FileEvent, reason: str) -> None:
    row = await files.mark_failed(pool, file_id=event.file_id, attempt=event.attempt, reason=reason)
    await announce(broker, row)


async def fail_turn(pool: asyncpg.Pool, event: TurnEvent, reason: str) -> None:
    await turns.mark_journal_failed(
        pool, user_id=event.user_id, turn_id=event.turn_id, reason=reason
    )


async def fail_event(
    pool: asyncpg.Pool, broker: NatsBroker, event: FileEvent | TurnEvent, reason: str
) -> None:
    """The final failure of a step: the file fails, or the turn's journaling does."""
    if isinstance(event, TurnEvent):
        await fail_turn(pool, event, reason)
    else:
        await fail_file(pool, broker, event, reason)


async def _is_current(pool: asyncpg.Pool, event: FileEvent | TurnEvent) -> bool:
    """Files: the event's attempt is the file's current one. Turns: the turn still exists."""
    if isinstance(event, TurnEvent):
        return await turns.turn_exists(pool, user_id=event.user_id, turn_id=event.turn_id)
    return await files.is_current_attempt(pool, file_id=event.file_id, attempt=event.attempt)


def _work(event: FileEvent | TurnEvent) -> WorkContext:
    """What the step's model calls are recorded against."""
    if isinstance(event, TurnEvent):
        return WorkContext(user_id=event.user_id, turn_id=event.turn_id)
    return WorkContext(user_id=event.user_id, file_id=event.file_id)


def _subject_of(event: FileEvent | TurnEvent) -> str:
    return f"turn {event.turn_id}" if isinstance(event, TurnEvent) else f"file {event.file_id}"


async def run_step(
    step: "Step[Any]",
    *,
    event: FileEvent | TurnEvent,
    msg: NatsMessage,
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> None:
    """Run a step for its event; retry transient errors, then fail the file (or the turn's
    journaling) with the reason.

    Events of a file that was deleted, has finished, or was retried since are dropped, and so
    are events of a deleted turn.
    """
    if not await _is_current(pool, event):
        return
    try:
        with working_on(_work(event)), _kept_in_progress(msg):
            await step(event, pool, broker)
    except PermanentError as exc:
        await fail_event(pool, broker, event, str(exc))
    except ConfigurationChanged as exc:
        # not the file's fault: hand the message back and stop; the restarted process checks
        # its configuration at start-up and says what to fix
        logger.error("stopping: %s", exc)
        os.kill(os.getpid(), signal.SIGTERM)
        raise NackMessage(delay=1.0) from exc
    except Exception as exc:
        deliveries = msg.raw_message.metadata.num_delivered
        if deliveries < pipeline_settings().max_deliveries:
            logger.warning("delivery %d of %s failed: %r", deliveries, _subject_of(event), exc)
            raise NackMessage(delay=pipeline_settings().retry_delay_seconds * deliveries) from exc
        logger.exception("giving up on %s after %d deliveries", _subject_of(event), deliveries)
        await fail_event(pool, broker, event, f"{type(exc).__name__}: {exc}")


@contextmanager
def _kept_in_progress(msg: NatsMessage) -> Iterator[None]:
    """Tell JetStream the message is still being worked on (slow model calls) so it is not
    redelivered to another worker meanwhile; a crashed worker stops telling, and it is."""

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(pipeline_settings().ack_wait_seconds / 3)
            await msg.in_progress()

    task = asyncio.create_task(heartbeat())
    try:
        yield
    finally:
        task.cancel()


def consumes(
    router: NatsRouter, subject: Subject, consumer: Consumer
) -> Callable[["Step[E]"], "Step[E]"]:
    """Register a step as the durable consumer of a subject (its event type from its hints)."""

    def register(step: "Step[E]") -> "Step[E]":
        event_type = get_type_hints(step)["event"]

        async def handler(
            event: event_type,  # type: ignore[valid-type]
            msg: NatsMessage,
            pool: asyncpg.Pool = Context("pool"),
            broker: NatsBroker = Context("broker"),
        ) -> None:
            await run_step(step, event=event, msg=msg, pool=pool, broker=broker)

        handler.__name__ = handler.__qualname__ = f"on_{subject.replace('.', '_')}"
        router.subscriber(subject, **work_queue(consumer), title=f"{consumer}:{subject}")(handler)
        return step

    return register
