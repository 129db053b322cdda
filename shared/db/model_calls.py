"""The model_calls table: one row per model call, scoped by user."""

from collections.abc import Sequence
from uuid import UUID

import asyncpg

from shared.usage import ModelCall, Recorded, UsageSink, WorkContext

Conn = asyncpg.Connection | asyncpg.Pool


def database_sink(pool: asyncpg.Pool) -> UsageSink:
    async def record(calls: Sequence[Recorded]) -> None:
        # the join keeps the row (without its file) when the file was deleted mid-call
        await pool.executemany(
            """INSERT INTO model_calls (user_id, file_id, turn_id, role, provider, model,
                   prompt_tokens, completion_tokens, latency_ms, cost_usd, outcome)
               SELECT $1, f.id, $3, $4, $5, $6, $7, $8, $9, $10, $11
               FROM (SELECT $2::uuid AS wanted) w LEFT JOIN files f ON f.id = w.wanted""",
            [_row(call, work) for call, work in calls],
        )

    return record


def _row(call: ModelCall, work: WorkContext | None) -> tuple[object, ...]:
    return (
        work.user_id if work else None,
        work.file_id if work else None,
        work.turn_id if work else None,
        call.role,
        call.provider,
        call.model,
        call.prompt_tokens,
        call.completion_tokens,
        call.latency_ms,
        call.cost_usd,
        call.outcome,
    )


async def list_for_file(conn: Conn, *, user_id: UUID, file_id: UUID) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT role, provider, model, prompt_tokens, completion_tokens, latency_ms,
                  cost_usd, outcome, created_at
           FROM model_calls WHERE file_id = $1 AND user_id = $2 ORDER BY created_at, id""",
        file_id,
        user_id,
    )
