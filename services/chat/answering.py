"""One chat turn, start to end: redact, gather context, stream 1A, check with 1B, store.

Events go out on chat.stream.<request_id>: `token`s, then one `done` — or one `error`, in which
case nothing was stored. The turn id derives from the request id, so a retried request stores
the same row once.
"""

import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
from faststream.nats import NatsBroker

from services.chat.sources import final_citations, load_passages
from shared.config import chat_settings
from shared.context_client import request_context
from shared.contracts import (
    ChatDone,
    ChatRequest,
    ChatStreamEvent,
    ContextRequest,
    Usage,
    chat_stream_subject,
)
from shared.db.turns import NewTurn, insert_turn
from shared.domain import REFUSAL
from shared.personas import Persona, get_persona, is_name_question, persona_names
from shared.providers import registry
from shared.providers.base import AnswerInput, AnswerStream
from shared.secrets import redact
from shared.telemetry import current_trace_context
from shared.text.citations import cited_refs
from shared.text.words import word_pieces
from shared.usage import WorkContext, working_on

logger = logging.getLogger(__name__)
CONTEXT_TIMEOUT_SECONDS = 15.0
TURN_NAMESPACE = uuid.UUID("6f1d3c1e-7a0b-4d47-9c55-2f7a0c2e9b11")


class ChatFailed(Exception):
    """A failure the user is told about as it is."""


@dataclass
class Outcome:
    answer: str
    refused: bool
    usage: Usage
    removed: list[str]
    input: AnswerInput | None = None  # None for a name question: nothing was looked up


def turn_id_for(request: ChatRequest) -> uuid.UUID:
    return uuid.uuid5(TURN_NAMESPACE, str(request.request_id))


async def answer_turn(broker: NatsBroker, pool: asyncpg.Pool, request: ChatRequest) -> None:
    """Answer the request on its stream; any failure becomes an `error` event."""
    subject = chat_stream_subject(request.request_id)
    turn_id = turn_id_for(request)
    try:
        with working_on(WorkContext(user_id=request.user_id, turn_id=turn_id)):
            done = await _answer(broker, pool, request, turn_id, subject)
    except Exception as exc:
        logger.exception("chat request %s failed", request.request_id)
        message = str(exc) if isinstance(exc, ChatFailed) else _describe(exc)
        await broker.publish(ChatStreamEvent(type="error", text=message), subject)
    else:
        await broker.publish(ChatStreamEvent(type="done", done=done), subject)
    await broker.connection.flush()


async def _answer(
    broker: NatsBroker, pool: asyncpg.Pool, request: ChatRequest, turn_id: uuid.UUID, subject: str
) -> ChatDone:
    persona = get_persona(request.persona)
    if persona is None:
        raise ChatFailed(f"Unknown persona {request.persona!r}: choose one of {persona_names()}.")
    message = redact(request.message).text  # before anything reads, sends or stores it
    if is_name_question(message):
        outcome = Outcome(persona.profile, False, Usage(model="persona-profile"), [])
        await _send_tokens(broker, subject, _pieces(persona.profile))
    else:
        outcome = await _grounded(broker, pool, request, persona, message, subject)
    citations = []
    if outcome.input is not None and not outcome.refused:
        citations = final_citations(outcome.answer, outcome.input.bundle, outcome.input.passages)
    sections = [] if outcome.input is None else outcome.input.bundle.sections
    section_sizes = [{"name": s.name, "tokens": s.tokens} for s in sections]
    await insert_turn(
        pool,
        NewTurn(
            id=turn_id,
            user_id=request.user_id,
            persona_name=persona.name,
            user_message=message,
            ai_response=redact(outcome.answer).text,  # as import stores it: a quote may hold one
            model=outcome.usage.model,
            prompt_tokens=outcome.usage.prompt_tokens,
            completion_tokens=outcome.usage.completion_tokens,
            attachments=request.attachments,
            citations=[c.model_dump(mode="json") for c in citations],
            context_sections=section_sizes,
            trace_context=current_trace_context(),
        ),
    )
    return ChatDone(
        turn_id=turn_id,
        persona=persona.name,
        answer=outcome.answer,
        citations=citations,
        sections=section_sizes,
        usage=outcome.usage,
        removed=outcome.removed,
        refused=outcome.refused,
    )


async def _grounded(
    broker: NatsBroker,
    pool: asyncpg.Pool,
    request: ChatRequest,
    persona: Persona,
    message: str,
    subject: str,
) -> Outcome:
    """1A over the context, streamed, then 1B unless switched off or nothing was claimed."""
    context_request = ContextRequest(
        user_id=request.user_id,
        persona=persona.name,
        query=message,
        attachments=request.attachments,
    )
    bundle = await request_context(broker, context_request, timeout=CONTEXT_TIMEOUT_SECONDS)
    passages = await load_passages(pool, request.user_id, bundle)
    answer_input = AnswerInput(persona, message, bundle, passages)
    stream = registry.answerer().stream_answer(answer_input)
    draft = await _send_tokens(broker, subject, stream)
    return await checked_outcome(answer_input, draft, stream, enabled=chat_settings().answer_check)


async def checked_outcome(
    answer_input: AnswerInput, draft: str, stream: AnswerStream, *, enabled: bool
) -> Outcome:
    """Call 1B over the draft, unless switched off or the draft is the refusal; a check that
    removes every cited sentence leaves nothing grounded, so the answer becomes the refusal."""
    if not enabled or stream.refused:
        return Outcome(draft.strip(), stream.refused, stream.usage, [], answer_input)
    checked = await registry.answer_checker().check_answer(answer_input, draft)
    usage = stream.usage.model_copy(
        update={
            "prompt_tokens": stream.usage.prompt_tokens + checked.prompt_tokens,
            "completion_tokens": stream.usage.completion_tokens + checked.completion_tokens,
        }
    )
    if checked.removed and not cited_refs(checked.answer):
        return Outcome(REFUSAL, True, usage, checked.removed, answer_input)
    return Outcome(checked.answer.strip(), False, usage, checked.removed, answer_input)


async def _send_tokens(broker: NatsBroker, subject: str, pieces: AsyncIterator[str]) -> str:
    sent = []
    async for piece in pieces:
        sent.append(piece)
        await broker.publish(ChatStreamEvent(type="token", text=piece), subject)
    return "".join(sent)


async def _pieces(text: str) -> AsyncIterator[str]:
    for piece in word_pieces(text):
        yield piece


def _describe(exc: Exception) -> str:
    return f"The answer failed ({type(exc).__name__}: {exc}). Try again in a moment."
