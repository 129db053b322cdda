"""The outbox's SQL (migration 0009): committed work not yet on the bus, chosen fairly, and work
that went quiet, re-driven.

A file waits in the 'queued' stage and a turn with published_at NULL. Each user has at most a
few files (and turns) in the pipeline at once; the rest wait here, so one user's thousand files
queue behind each other, not in front of everyone else's. The file share is work-conserving: a
user whose files are the only ones waiting may have more in flight, a step at a time, while the
dispatcher sees the pipeline keep up (dispatcher.py), so idle workers do not wait on the share.
"""

from collections.abc import Sequence
from uuid import UUID

import asyncpg

from shared.db.files import FILE_COLUMNS
from shared.progress import STAGE_START

Conn = asyncpg.Connection | asyncpg.Pool

# per waiting user, the oldest queued files that fit beside the ones already in flight: the share
# ($1), or for the only waiting user, up to $3 more than it has now while under $4. The waiting
# users are found by skipping through files_queued_idx one user at a time, and each one's files
# in flight are counted in files_in_flight_idx: a round reads a few index entries per user, not
# every queued file (the round runs after every file that finishes).
_NEXT_FILES = """
    WITH RECURSIVE queued_user(user_id) AS (
        (SELECT user_id FROM files
         WHERE status = 'processing' AND processing_stage = 'queued'
         ORDER BY user_id LIMIT 1)
        UNION ALL
        SELECT (SELECT f.user_id FROM files f
                WHERE f.status = 'processing' AND f.processing_stage = 'queued'
                  AND f.user_id > queued_user.user_id
                ORDER BY f.user_id LIMIT 1)
        FROM queued_user WHERE queued_user.user_id IS NOT NULL
    ), waiting AS (
        SELECT user_id, (SELECT count(*) FROM files f
                         WHERE f.user_id = queued_user.user_id
                           AND f.status = 'processing' AND f.processing_stage <> 'queued'
                        ) AS in_flight
        FROM queued_user WHERE user_id IS NOT NULL
    ), alone AS (
        SELECT count(*) = 1 AS alone FROM waiting
    )
    SELECT next.id, next.user_id, next.attempt, next.trace_context,
           -- a scalar subquery, one probe of the primary key per row: as EXISTS the planner
           -- may hash all of file_contents instead (it did on a fresh table)
           coalesce((SELECT c.text IS NOT NULL FROM file_contents c
                     WHERE c.file_id = next.id AND c.version = next.version), false) AS extracted
    FROM waiting CROSS JOIN alone
    CROSS JOIN LATERAL (
        SELECT id, user_id, attempt, trace_context, uploaded_at, version FROM files
        WHERE user_id = waiting.user_id
          AND status = 'processing' AND processing_stage = 'queued'
        ORDER BY uploaded_at, id
        LIMIT greatest(
            CASE WHEN alone THEN greatest($1, least(in_flight + $3, $4)) ELSE $1 END - in_flight,
            0)
    ) next
    ORDER BY next.uploaded_at
    LIMIT $2"""

_NEXT_TURNS = """
    WITH waiting AS (
        SELECT DISTINCT user_id FROM superjournal
        WHERE journal_status = 'pending' AND published_at IS NULL
    ), in_flight AS (
        SELECT user_id, count(*) AS n FROM superjournal
        WHERE journal_status = 'pending' AND published_at IS NOT NULL
          AND user_id IN (SELECT user_id FROM waiting)
        GROUP BY user_id
    )
    SELECT next.id, next.user_id, next.journal_attempt, next.trace_context
    FROM waiting LEFT JOIN in_flight USING (user_id)
    CROSS JOIN LATERAL (
        SELECT id, user_id, journal_attempt, trace_context, created_at FROM superjournal
        WHERE user_id = waiting.user_id AND journal_status = 'pending' AND published_at IS NULL
        ORDER BY created_at, id
        LIMIT greatest($1 - coalesce(in_flight.n, 0), 0)
    ) next
    ORDER BY next.created_at
    LIMIT $2"""


async def next_files(
    conn: Conn, *, per_user: int, limit: int, alone_extra: int = 0, alone_max: int = 0
) -> list[asyncpg.Record]:
    """Queued files to publish now: each waiting user's share (`per_user` in flight); the only
    waiting user may have `alone_extra` more than it has in flight, up to `alone_max`."""
    return await conn.fetch(_NEXT_FILES, per_user, limit, alone_extra, alone_max)


async def next_turns(conn: Conn, *, per_user: int, limit: int) -> list[asyncpg.Record]:
    return await conn.fetch(_NEXT_TURNS, per_user, limit)


async def files_dispatched(
    conn: Conn, *, ids: Sequence[UUID], attempts: Sequence[int], extracted: Sequence[bool]
) -> list[asyncpg.Record]:
    """Queued files whose event is on the bus start extracting, or classifying when their text
    was stored at upload (a quick worker may have moved one on already: it is left as it is).

    Only a processing file is ever 'queued', so the status is not compared: with it, the
    condition is files_queued_idx's, and a planner that underestimates the queue (a table not
    yet analysed) walked that whole index for every round's few files (3,000 entries for 4)."""
    return await conn.fetch(
        f"""UPDATE files SET
                processing_stage = CASE WHEN sent.extracted THEN 'classifying'
                                        ELSE 'extracting' END,
                progress = GREATEST(progress, CASE WHEN sent.extracted
                                                   THEN {STAGE_START["classifying"]}
                                                   ELSE {STAGE_START["extracting"]} END),
                updated_at = clock_timestamp()
            FROM unnest($1::uuid[], $2::int[], $3::bool[]) AS sent(id, attempt, extracted)
            WHERE files.id = sent.id AND files.attempt = sent.attempt
              AND processing_stage = 'queued'
            RETURNING {", ".join(f"files.{c.strip()}" for c in FILE_COLUMNS.split(","))}""",
        list(ids),
        list(attempts),
        list(extracted),
    )


async def turns_dispatched(conn: Conn, *, ids: Sequence[UUID], attempts: Sequence[int]) -> None:
    await conn.execute(
        """UPDATE superjournal SET published_at = clock_timestamp()
           FROM unnest($1::uuid[], $2::int[]) AS sent(id, attempt)
           WHERE superjournal.id = sent.id AND journal_attempt = sent.attempt
             AND published_at IS NULL""",
        list(ids),
        list(attempts),
    )


async def redrive_files(conn: Conn, *, quiet_seconds: float, max_redrives: int) -> list:
    """Files handed to the bus that went quiet start over as a new attempt, queued again; their
    chunks stay, so unchanged ones keep their cuts and vectors (no second model call)."""
    return await conn.fetch(
        f"""UPDATE files SET attempt = attempt + 1, redrives = redrives + 1,
                processing_stage = 'queued', progress = {STAGE_START["queued"]},
                processed_chunks = 0, updated_at = clock_timestamp()
            WHERE status = 'processing' AND processing_stage <> 'queued'
              AND updated_at < clock_timestamp() - make_interval(secs => $1)
              AND redrives < $2
            RETURNING {FILE_COLUMNS}""",
        quiet_seconds,
        max_redrives,
    )


async def fail_stalled_files(
    conn: Conn, *, quiet_seconds: float, max_redrives: int, reason: str
) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""UPDATE files SET status = 'failed', processing_stage = 'failed',
                error_message = $3, updated_at = clock_timestamp()
            WHERE status = 'processing' AND processing_stage <> 'queued'
              AND updated_at < clock_timestamp() - make_interval(secs => $1)
              AND redrives >= $2
            RETURNING {FILE_COLUMNS}""",
        quiet_seconds,
        max_redrives,
        reason,
    )


async def redrive_turns(conn: Conn, *, quiet_seconds: float, max_redrives: int) -> int:
    """Turns on the bus that went quiet are published again (as a new attempt)."""
    rows = await conn.fetch(
        """UPDATE superjournal SET journal_attempt = journal_attempt + 1, published_at = NULL
           WHERE journal_status = 'pending'
             AND published_at < clock_timestamp() - make_interval(secs => $1)
             AND journal_attempt <= $2
           RETURNING id""",
        quiet_seconds,
        max_redrives,
    )
    return len(rows)


async def fail_stalled_turns(
    conn: Conn, *, quiet_seconds: float, max_redrives: int, reason: str
) -> int:
    rows = await conn.fetch(
        """UPDATE superjournal SET journal_status = 'failed', journal_error = $3
           WHERE journal_status = 'pending'
             AND published_at < clock_timestamp() - make_interval(secs => $1)
             AND journal_attempt > $2
           RETURNING id""",
        quiet_seconds,
        max_redrives,
        reason,
    )
    return len(rows)
