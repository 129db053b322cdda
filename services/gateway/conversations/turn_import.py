"""Importing past conversations: each turn stored once (deterministic ids), secrets redacted,
and sent through the same pipeline as a live turn."""

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID

import asyncpg
from fastapi import HTTPException

from services.gateway.conversations.lookup import owned_conversation
from services.gateway.conversations.turn_schemas import MAX_IMPORT_TURNS, ImportTurn
from shared.db import conversations
from shared.db.turns import NewTurn, insert_turn
from shared.personas import get_persona, persona_names
from shared.secrets import redact
from shared.telemetry import current_trace_context

_IMPORT_NAMESPACE = uuid.UUID("0b9f6a52-2f4e-4c39-8f57-7d1f0e3c6a21")


def import_turn_id(
    user_id: UUID, created_at: datetime | None, persona: str, message: str, *, untimed: str
) -> UUID:
    """The same turn imported twice has the same id, so it is stored once. A turn without a
    time is told apart by `untimed` (its place in the request and its answer): two untimed
    "ok" turns to one persona are two turns, and re-sending the request stores them once."""
    if created_at is None:
        return uuid.uuid5(
            _IMPORT_NAMESPACE, f"{user_id}\x1f\x1f{persona}\x1f{message}\x1f{untimed}"
        )
    stamp = created_at.astimezone(UTC).isoformat()
    return uuid.uuid5(_IMPORT_NAMESPACE, f"{user_id}\x1f{stamp}\x1f{persona}\x1f{message}")


def check_import(turns: Sequence[ImportTurn]) -> None:
    """Refuse the whole request before anything is stored."""
    if len(turns) > MAX_IMPORT_TURNS:
        raise HTTPException(
            413,
            f"Too many turns: {len(turns)} in one request; at most {MAX_IMPORT_TURNS}."
            " Send the history in batches of up to 1000 turns.",
        )
    unknown: dict[str, list[int]] = {}
    for index, turn in enumerate(turns):
        if get_persona(turn.persona) is None:
            unknown.setdefault(turn.persona, []).append(index)
    if unknown:
        listed = "; ".join(
            f"{name!r} (turns {', '.join(map(str, where[:10]))})" for name, where in unknown.items()
        )
        raise HTTPException(
            422,
            f"Unknown persona {listed}. Valid personas: {', '.join(persona_names())}"
            " (see GET /v1/personas).",
        )


def new_turns(user_id: UUID, turns: Sequence[ImportTurn]) -> list[NewTurn]:
    # turns without a time keep their order: a microsecond apart from now
    now, trace_context = datetime.now(UTC), current_trace_context()
    prepared = []
    for index, turn in enumerate(turns):
        persona = turn.persona.strip().lower()
        message, answer = redact(turn.user_message).text, redact(turn.ai_response).text
        created_at = turn.created_at
        if created_at is not None and created_at.tzinfo is None:
            created_at = created_at.replace(tzinfo=UTC)
        turn_id = import_turn_id(
            user_id, created_at, persona, message, untimed=f"{index}\x1f{answer}"
        )
        prepared.append(
            NewTurn(
                id=turn_id,
                user_id=user_id,
                persona_name=persona,
                user_message=message,
                ai_response=answer,
                imported=True,
                created_at=created_at or now + timedelta(microseconds=index),
                trace_context=trace_context,
            )
        )
    return prepared


async def import_turns(
    pool: asyncpg.Pool,
    *,
    user_id: UUID,
    turns: Sequence[ImportTurn],
    conversation_id: UUID | None = None,
) -> list[asyncpg.Record]:
    """Store the turns in one transaction; the dispatcher then queues each for the journal.
    New turns go into `conversation_id`, or else into one new conversation per persona; a turn
    imported before stays where it is."""
    check_import(turns)
    prepared = new_turns(user_id, turns)
    if conversation_id is not None:
        await check_personas(pool, user_id, conversation_id, prepared)
    async with pool.acquire() as conn, conn.transaction():
        stored = {
            row["id"]
            for row in await conn.fetch(
                "SELECT id FROM superjournal WHERE user_id = $1 AND id = ANY($2::uuid[])",
                user_id,
                [turn.id for turn in prepared],
            )
        }
        started: dict[str, UUID] = {}  # persona -> the conversation this import started
        rows = []
        for turn in prepared:
            if turn.id not in stored and conversation_id is not None:
                turn = replace(turn, conversation_id=conversation_id)
            elif turn.id not in stored:
                if turn.persona_name not in started:
                    row = await conversations.create_conversation(
                        conn, user_id=user_id, persona=turn.persona_name
                    )
                    started[turn.persona_name] = row["id"]
                turn = replace(turn, conversation_id=started[turn.persona_name])
            rows.append(await insert_turn(conn, turn))
        return rows


async def check_personas(
    pool: asyncpg.Pool, user_id: UUID, conversation_id: UUID, turns: Sequence[NewTurn]
) -> None:
    """Turns imported into a conversation are with its persona: 404 for a conversation that is
    not the user's, 409 for a turn with another persona."""
    conversation = await owned_conversation(pool, user_id, conversation_id)
    persona = conversation["persona_name"]
    others = [index for index, turn in enumerate(turns) if turn.persona_name != persona]
    if others:
        raise HTTPException(
            409,
            f"The conversation is with {persona!r}, but turns"
            f" {', '.join(map(str, others[:10]))} are with another persona: import them without"
            " conversation_id (each persona gets a conversation), or into one of theirs.",
        )
