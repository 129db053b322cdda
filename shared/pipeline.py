"""What every pipeline step shares: its consumer, bounded retries that end in a failed file (or
a turn whose journaling failed), stale-event drops and progress fan-out."""

import asyncio
import itertools
import logging
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, get_type_hints

import asyncpg
from faststream.exceptions import NackMessage
from faststream.nats import NatsBroker, NatsRouter
from faststream.nats.message import NatsMessage
from pydantic import BaseModel, TypeAdapter

from shared.bus import LoopContext, publish_event, publish_progress, work_queue
from shared.config import pipeline_settings
from shared.contracts import Consumer, FileEvent, FileReady, Subject, TurnEvent
from shared.db import files, turns
from shared.errors import ConfigurationChanged, ModelFailure, PermanentError
from shared.metrics.pipeline import count_step_failure, count_turn_failed, observe_file_row
from shared.models.words import file_failure, turn_failure
from shared.outages import is_outage, wait_for_infrastructure
from shared.progress import ProgressThrottle, progress_event
from shared.usage import WorkContext, calls_held, record_held_calls, working_on

logger = logging.getLogger(__name__)
# reruns of one delivery after outage errors; bounds a misread error that keeps recurring
MAX_OUTAGE_RERUNS = 20
E = TypeVar("E", bound=FileEvent | TurnEvent)
# a pipeline step: the work one event asks for, given the pool and the broker to publish on
Step = Callable[[E, asyncpg.Pool, NatsBroker], Awaitable[None]]


_throttle = ProgressThrottle()


async def announce(
    broker: NatsBroker, row: Mapping[str, Any] | None, *, publishing_next: bool = False
) -> None:
    """Tell SSE clients about a committed files row (nothing when the step was stale); a chunk
    count only a moment after the file's last event waits for the next one. A caller
    `publishing_next` to the stream has the event written with that publish, which it awaits:
    one socket write instead of two."""
    if row is not None and _throttle.should_send(row, time.monotonic()):
        observe_file_row(row)
        await publish_progress(broker, row["user_id"], progress_event(row))
        if not publishing_next:
            # out now: the worker's other messages may keep the event loop busy with CPU work.
            # The publish woke the client's flusher task; yielding once lets it write first (a
            # flush() would also wait for the server's PONG: one more round trip per event)
            await asyncio.sleep(0)


async def announce_ready(
    broker: NatsBroker, event: FileEvent, row: Mapping[str, Any] | None
) -> None:
    """Tell SSE clients, and the bus (file.ready), that a file is ready (nothing when stale)."""
    await announce(broker, row, publishing_next=True)
    if row is not None:
        ready = FileReady(**event.model_dump(), total_chunks=row["total_chunks"])
        await publish_event(broker, Subject.FILE_READY, ready)


class Work(ABC):
    """What a pipeline event asks for: one file's processing attempt, or one turn's way into the
    journal. run_step and the dead letters speak only to this interface."""

    kind: ClassVar[str]  # "file" | "turn": names the work in logs and failure reasons

    @abstractmethod
    def context(self) -> WorkContext:
        """What the step's model calls are recorded against."""

    @abstractmethod
    def describe(self) -> str:
        """'file <id>' or 'turn <id>'."""

    @abstractmethod
    async def is_current(self, pool: asyncpg.Pool) -> bool:
        """False for a stale event: its work was deleted, finished or restarted since."""

    @abstractmethod
    async def fail(self, pool: asyncpg.Pool, broker: NatsBroker, reason: str) -> None:
        """The final failure of a step: the file fails, or the turn's journaling does."""

    @abstractmethod
    def model_failed(self, exc: ModelFailure, tries: int) -> str:
        """A model's failure in words its owner can act on (shared.models.words)."""

    def reason(self, exc: Exception, tries: int) -> str:
        """What the failure says about `exc`, the step's error on its last of `tries` runs: a
        model's failure in words, since its message holds the model's address and error body
        (they stay in the service's log); a PermanentError's message is written for people;
        any other names its kind."""
        if isinstance(exc, ModelFailure):
            return self.model_failed(exc, tries)
        return str(exc) if isinstance(exc, PermanentError) else f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class FileWork(Work):
    event: FileEvent
    kind: ClassVar[str] = "file"

    def context(self) -> WorkContext:
        return WorkContext(user_id=self.event.user_id, file_id=self.event.file_id)

    def describe(self) -> str:
        return f"file {self.event.file_id}"

    async def is_current(self, pool: asyncpg.Pool) -> bool:
        """The event's attempt is still the file's current one."""
        event = self.event
        return await files.is_current_attempt(
            pool, user_id=event.user_id, file_id=event.file_id, attempt=event.attempt
        )

    def model_failed(self, exc: ModelFailure, tries: int) -> str:
        return file_failure(exc, tries)

    async def fail(self, pool: asyncpg.Pool, broker: NatsBroker, reason: str) -> None:
        event = self.event
        row = await files.mark_failed(
            pool, file_id=event.file_id, attempt=event.attempt, reason=reason
        )
        await announce(broker, row)


@dataclass(frozen=True)
class TurnWork(Work):
    event: TurnEvent
    kind: ClassVar[str] = "turn"

    def context(self) -> WorkContext:
        return WorkContext(user_id=self.event.user_id, turn_id=self.event.turn_id)

    def describe(self) -> str:
        return f"turn {self.event.turn_id}"

    async def is_current(self, pool: asyncpg.Pool) -> bool:
        """The turn still exists (its journaling re-runs only by a new attempt)."""
        return await turns.turn_exists(pool, user_id=self.event.user_id, turn_id=self.event.turn_id)

    def model_failed(self, exc: ModelFailure, tries: int) -> str:
        return turn_failure(exc, tries)

    async def fail(self, pool: asyncpg.Pool, broker: NatsBroker, reason: str) -> None:
        if await turns.mark_journal_failed(
            pool, user_id=self.event.user_id, turn_id=self.event.turn_id, reason=reason
        ):
            count_turn_failed()


# the kind of work each family of events asks for; every pipeline event derives from one key
WORK_KINDS: dict[type[BaseModel], Callable[[Any], Work]] = {
    FileEvent: FileWork,
    TurnEvent: TurnWork,
}
# a stored message read back (dead letters): a turn event has a turn_id, a file event a file_id
_STORED_EVENT: TypeAdapter[FileEvent | TurnEvent] = TypeAdapter(FileEvent | TurnEvent)


def work_of(event: FileEvent | TurnEvent) -> Work:
    """The work an event asks for, chosen by the family its class belongs to."""
    family = next(cls for cls in type(event).__mro__ if cls in WORK_KINDS)
    return WORK_KINDS[family](event)


def work_from_message(data: object) -> Work:
    """The work a stored message asks for; ValidationError when it is no pipeline event."""
    return work_of(_STORED_EVENT.validate_python(data))


async def run_step(
    step: "Step[Any]",
    *,
    event: FileEvent | TurnEvent,
    msg: NatsMessage,
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> None:
    """Run a step for its event; retry transient errors, then fail the file (or the turn's
    journaling) with the reason. While the database or the bus is away the step waits for it
    and runs again, without spending a delivery: an outage is nobody's file's fault.

    Events of a file that was deleted, has finished, or was retried since are dropped, and so
    are events of a deleted turn.
    """
    work = work_of(event)
    with working_on(work.context()), _kept_in_progress(msg):
        for reruns in itertools.count():
            try:
                async with calls_held():
                    await _run_once(step, work, event, pool, broker)
                return
            except ConfigurationChanged as exc:
                # not the file's fault: hand the message back and stop; the restarted process
                # checks its configuration at start-up and says what to fix
                logger.error("stopping: %s", exc)
                os.kill(os.getpid(), signal.SIGTERM)
                raise NackMessage(delay=1.0) from exc
            except Exception as exc:
                if reruns < MAX_OUTAGE_RERUNS and await is_outage(exc, pool, broker):
                    logger.warning(
                        "%s waits for the database and the bus: %r", work.describe(), exc
                    )
                    await wait_for_infrastructure(pool, broker)
                    continue
                await _failed_delivery(work, msg, pool, broker, exc)
                return


async def _run_once(
    step: "Step[Any]",
    work: Work,
    event: FileEvent | TurnEvent,
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> None:
    if not await work.is_current(pool):
        return
    try:
        await step(event, pool, broker)
    except PermanentError as exc:
        await record_held_calls()
        logger.warning("%s failed for good: %s", work.describe(), exc)  # the whole error
        await work.fail(pool, broker, work.reason(exc, tries=1))


async def _failed_delivery(
    work: Work, msg: NatsMessage, pool: asyncpg.Pool, broker: NatsBroker, exc: Exception
) -> None:
    """Hand the message back for a later delivery, or fail the work on the last one."""
    deliveries = msg.raw_message.metadata.num_delivered
    gave_up = deliveries >= pipeline_settings().max_deliveries
    count_step_failure(msg.raw_message.subject, gave_up=gave_up)
    if not gave_up:
        logger.warning("delivery %d of %s failed: %r", deliveries, work.describe(), exc)
        raise NackMessage(delay=pipeline_settings().retry_delay_seconds * deliveries) from exc
    logger.error("giving up on %s after %d deliveries", work.describe(), deliveries, exc_info=exc)
    await work.fail(pool, broker, work.reason(exc, tries=deliveries))


@contextmanager
def _kept_in_progress(msg: NatsMessage) -> Iterator[None]:
    """Tell JetStream the message is still being worked on (slow model calls) so it is not
    redelivered to another worker meanwhile; a crashed worker stops telling, and it is."""

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(pipeline_settings().ack_wait_seconds / 3)
            with suppress(Exception):  # the bus is away: JetStream redelivers if it must
                await msg.in_progress()

    task = asyncio.create_task(heartbeat())
    try:
        yield
    finally:
        task.cancel()


def consumes(
    router: NatsRouter, subject: Subject, consumer: Consumer, concurrency: int | None = None
) -> Callable[["Step[E]"], "Step[E]"]:
    """Register a step as the durable consumer of a subject (its event type from its hints),
    working on `concurrency` messages at once (default: the pipeline's setting)."""

    def register(step: "Step[E]") -> "Step[E]":
        event_type = get_type_hints(step)["event"]

        async def handler(
            event: event_type,  # type: ignore[valid-type]
            msg: NatsMessage = LoopContext("message"),
            pool: asyncpg.Pool = LoopContext("pool"),
            broker: NatsBroker = LoopContext("broker"),
        ) -> None:
            await run_step(step, event=event, msg=msg, pool=pool, broker=broker)

        handler.__name__ = handler.__qualname__ = f"on_{subject.replace('.', '_')}"
        for slot in range(concurrency or pipeline_settings().concurrency()):
            title = f"{consumer}:{subject}:{slot}"
            router.subscriber(subject, **work_queue(consumer), title=title)(handler)
        return step

    return register
