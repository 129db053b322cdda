"""The dispatcher: hands work committed by requests (uploads, retries, chat turns, imports) to
the bus, each user's a few at a time, and re-drives work that went quiet.

A request only commits rows (outbox.py), so a crash between its commit and a
publish loses nothing: whatever is queued is published by the next dispatcher round. One
gateway replica leads (a Postgres advisory lock held by its listening connection); the others
wait to take over. It wakes on NOTIFY from the tables' triggers and polls as a fallback.
"""

import asyncio
import json
import logging
from collections.abc import Awaitable, Iterable
from contextlib import suppress
from typing import Any

import asyncpg
from nats.js.api import ConsumerInfo

from services.gateway.dispatch import outbox
from services.gateway.dispatch.progress_hub import GatewayProgress
from services.gateway.dispatch.settings import DispatchSettings, dispatch_settings
from shared.bus import publish_event
from shared.contracts import (
    STREAM_NAME,
    Consumer,
    FileExtracted,
    FileUploaded,
    Subject,
    TurnCompleted,
)
from shared.metrics.pipeline import count_redrives
from shared.telemetry import continued_trace

logger = logging.getLogger(__name__)
CHANNEL = "artisan_dispatch"  # migration 0009's triggers notify it
_LEADER_LOCK = 4_242_012
POLL_SECONDS = 1.0  # a missed notification delays work by this much at most
# rounds start at most this often: the files finishing meanwhile (a NOTIFY each) are released
# in one round, and a user's share in flight keeps the workers busy for longer than this
ROUND_SECONDS = 0.05
SWEEP_SECONDS = 5.0  # how often quiet work is looked for
STANDBY_SECONDS = 5.0  # how often a replica that does not lead (or lost its connection) retries
BATCH = 200  # rows per round trip; a publish burst of this many is acked in parallel
STALLED = (
    "processing stopped making progress {n} times (a service or the bus lost its work each"
    " time); retry it, and check the services' logs if it stops again"
)


class Dispatcher:
    def __init__(
        self,
        pool: asyncpg.Pool,
        progress: GatewayProgress,
        database_url: str,
        settings: DispatchSettings | None = None,
    ) -> None:
        self.pool, self.progress, self.database_url = pool, progress, database_url
        self.broker = progress.broker
        self.settings = settings or dispatch_settings()

    async def run(self) -> None:
        """Lead whenever this replica can; survive the database or the bus going away."""
        while True:
            try:
                await self._lead()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("dispatcher paused (%r); trying again shortly", exc)
            await asyncio.sleep(STANDBY_SECONDS)

    async def _lead(self) -> None:
        conn = await asyncpg.connect(self.database_url)
        try:
            if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", _LEADER_LOCK):
                return  # another replica leads
            wake = asyncio.Event()
            await conn.add_listener(CHANNEL, lambda *_: wake.set())
            loop = asyncio.get_running_loop()
            next_sweep = loop.time() + SWEEP_SECONDS
            while not conn.is_closed():
                round_started = loop.time()
                wake.clear()
                await self.dispatch()
                if loop.time() >= next_sweep:
                    await self.redrive()
                    next_sweep = loop.time() + SWEEP_SECONDS
                with suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), POLL_SECONDS)
                await asyncio.sleep(round_started + ROUND_SECONDS - loop.time())
        finally:
            with suppress(Exception):
                await conn.close(timeout=2)

    async def dispatch(self) -> None:
        """Publish every queued file and turn that its user's share allows."""
        while True:
            sent = await self._dispatch_files() + await self._dispatch_turns()
            if sent < BATCH:
                return

    async def _dispatch_files(self) -> int:
        share = self.settings.files_in_flight_per_user
        rows = await outbox.next_files(
            self.pool,
            per_user=share,
            limit=BATCH,
            alone_extra=share if await self._pipeline_keeps_up() else 0,
            alone_max=self.settings.files_in_flight_alone,
        )
        if not rows:
            return 0
        await _all(self._publish_file(row) for row in rows)
        started = await outbox.files_dispatched(
            self.pool,
            ids=[r["id"] for r in rows],
            attempts=[r["attempt"] for r in rows],
            extracted=[r["extracted"] for r in rows],
        )
        for row in started:
            await self.progress.announce(row)
        return len(rows)

    async def _publish_file(self, row: asyncpg.Record) -> None:
        """file.uploaded for the extractor, or file.extracted for the chunker when the file's
        text is stored already (read at upload, or by an earlier attempt)."""
        ids = {"file_id": row["id"], "user_id": row["user_id"], "attempt": row["attempt"]}
        with continued_trace(_carrier(row), "gateway.dispatch_file"):
            if row["extracted"]:
                await publish_event(self.broker, Subject.FILE_EXTRACTED, FileExtracted(**ids))
            else:
                await publish_event(self.broker, Subject.FILE_UPLOADED, FileUploaded(**ids))

    async def _dispatch_turns(self) -> int:
        rows = await outbox.next_turns(
            self.pool, per_user=self.settings.turns_in_flight_per_user, limit=BATCH
        )
        if not rows:
            return 0
        await _all(self._publish_turn(row) for row in rows)
        await outbox.turns_dispatched(
            self.pool, ids=[r["id"] for r in rows], attempts=[r["journal_attempt"] for r in rows]
        )
        return len(rows)

    async def _publish_turn(self, row: asyncpg.Record) -> None:
        event = TurnCompleted(
            turn_id=row["id"], user_id=row["user_id"], attempt=row["journal_attempt"]
        )
        with continued_trace(_carrier(row), "gateway.dispatch_turn"):
            await publish_event(self.broker, Subject.TURN_COMPLETED, event)

    async def redrive(self) -> None:
        """Start over work whose messages are gone: quiet while the bus holds nothing for any
        pipeline consumer (or quiet for very long, whatever the bus holds)."""
        quiet = (
            self.settings.redrive_after_seconds
            if await self._bus_is_idle()
            else self.settings.redrive_anyway_after_seconds
        )
        limits: dict[str, Any] = {
            "quiet_seconds": quiet,
            "max_redrives": self.settings.max_redrives,
        }
        reason = STALLED.format(n=self.settings.max_redrives + 1)
        async with self.pool.acquire() as conn, conn.transaction():
            restarted = await outbox.redrive_files(conn, **limits)
            failed = await outbox.fail_stalled_files(conn, **limits, reason=reason)
            turns = await outbox.redrive_turns(conn, **limits)
            turns_failed = await outbox.fail_stalled_turns(conn, **limits, reason=reason)
        count_redrives(
            files=len(restarted), turns=turns, failed_files=failed, failed_turns=turns_failed
        )
        for row in [*restarted, *failed]:
            await self.progress.announce(row)
        if restarted or failed or turns or turns_failed:
            logger.warning(
                "re-drove %d quiet files and %d turns; failed %d files and %d turns that stalled"
                " too often",
                len(restarted),
                turns,
                len(failed),
                turns_failed,
            )

    async def _pipeline_keeps_up(self) -> bool:
        """No consumer has more waiting than it is working on (so a lone user's extra files
        would find idle workers, and anyone's next file waits behind one round at most)."""
        try:
            infos = await self.broker.connection.jetstream().consumers_info(STREAM_NAME)
        except Exception:
            return False  # cannot tell: the share alone
        return keeps_up(infos)

    async def _bus_is_idle(self) -> bool:
        """No pipeline consumer has a message waiting or in progress."""
        infos = await self.broker.connection.jetstream().consumers_info(STREAM_NAME)
        ours = {consumer.value for consumer in Consumer}
        return all(
            info.num_pending == 0 and info.num_ack_pending == 0
            for info in infos
            if info.name in ours
        )


def keeps_up(infos: Iterable[ConsumerInfo]) -> bool:
    """Every pipeline consumer has at most as many messages waiting as in progress."""
    ours = [info for info in infos if info.name in {consumer.value for consumer in Consumer}]
    return all((info.num_pending or 0) <= (info.num_ack_pending or 0) for info in ours)


async def _all(publishes: Iterable[Awaitable[None]]) -> None:
    """Publish concurrently: JetStream acks each, and one at a time would pay a round trip each."""
    await asyncio.gather(*publishes)


def _carrier(row: asyncpg.Record) -> dict[str, str]:
    """The trace context stored with the work (JSONB arrives as text)."""
    return json.loads(row["trace_context"] or "{}")
