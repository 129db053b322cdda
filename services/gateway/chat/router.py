"""POST /v1/chat: a persona's answer as server-sent events — `token`s, then `done` (or `error`).

The request is checked here first (persona, message size, attachments), then handed to the chat
service and its answer relayed (relay.py, shared with the OpenAI-compatible route); when the
asker leaves before the answer ends, it is abandoned and nothing is stored.
"""

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Annotated
from uuid import UUID, uuid4

from fastapi import APIRouter, Depends, HTTPException
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from services.gateway.auth import CurrentUser, ExpensiveUser
from services.gateway.chat.relay import (
    StartedAnswer,
    answer_events,
    check_attachments,
    check_message,
    start_answer,
)
from services.gateway.conversations.lookup import conversation_for_question
from services.gateway.deps import Broker, Pool, Streams
from services.gateway.dispatch.streams import PING_SECONDS, SEND_TIMEOUT_SECONDS
from services.gateway.errors import StorableText
from services.gateway.fair_use.limits import HeldEventSource
from services.gateway.schemas import ErrorResponse
from shared.config import ChatSettings, chat_settings
from shared.contracts import ChatRequest
from shared.personas import get_persona, persona_names

router = APIRouter(tags=["chat"])
MAX_ATTACHMENTS = 100  # as many as one upload may bring
MAX_MESSAGE_FIELD_CHARS = 100_000  # the schema's bound; the configured limit is checked below


class ChatBody(BaseModel):
    persona: str = Field(max_length=100, description="a name from GET /v1/personas")
    message: StorableText = Field(
        max_length=MAX_MESSAGE_FIELD_CHARS,
        description="your question or message; over ARTISAN_MAX_MESSAGE_CHARS (default 20,000)"
        " characters it is a 413",
    )
    attachments: list[UUID] = Field(
        default_factory=list,
        max_length=MAX_ATTACHMENTS,
        description="ids of your files the answer may use (none: all your files); a failed"
        " file is a 422",
    )
    conversation_id: UUID | None = Field(
        None,
        description="the conversation to ask in (POST /v1/conversations starts one; it must be"
        " with this persona, else 409); without it, the persona's latest conversation, or a new"
        " one",
    )


_STREAM = {
    200: {
        "content": {"text/event-stream": {}},
        "description": '`event: token` data {"text"}; one `event: done` with the ChatDone JSON'
        ' (turn_id, answer, citations, sections, usage); or `event: error` data {"detail"}',
    },
    401: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
    409: {"model": ErrorResponse, "description": "the conversation is with another persona"},
    413: {"model": ErrorResponse},
    422: {"model": ErrorResponse},
    503: {"model": ErrorResponse},
}


async def get_chat_settings() -> ChatSettings:
    return chat_settings()


class ChatLimits(BaseModel):
    max_message_chars: int = Field(description="longest message POST /v1/chat accepts")


@router.get("/v1/chat/limits", response_model=ChatLimits, responses={401: {"model": ErrorResponse}})
async def chat_limits(
    _user: CurrentUser, settings: Annotated[ChatSettings, Depends(get_chat_settings)]
) -> ChatLimits:
    """What a client needs to check a message before sending it (the web client's counter)."""
    return ChatLimits(max_message_chars=settings.max_message_chars)


@router.post("/v1/chat", response_class=EventSourceResponse, responses=_STREAM)
async def chat(
    body: ChatBody,
    user: ExpensiveUser,
    pool: Pool,
    broker: Broker,
    streams: Streams,
    settings: Annotated[ChatSettings, Depends(get_chat_settings)],
) -> EventSourceResponse:
    """Ask a persona; the answer streams back with its citations."""
    persona = get_persona(body.persona)
    if persona is None:
        raise HTTPException(
            422, f"Unknown persona {body.persona!r}: choose one of {', '.join(persona_names())}."
        )
    check_message(body.message, settings)
    await check_attachments(pool, user.id, body.attachments)
    conversation_id = await conversation_for_question(
        pool, user.id, persona.name, body.conversation_id, start=True
    )
    request = ChatRequest(
        request_id=uuid4(),
        user_id=user.id,
        persona=persona.name,
        message=body.message,
        attachments=list(dict.fromkeys(body.attachments)),
        conversation_id=conversation_id,
    )
    answer = await start_answer(broker, streams, request)
    return HeldEventSource(
        relay(answer, settings.answer_timeout_seconds),
        slot=answer.slot,
        ping=PING_SECONDS,
        send_timeout=SEND_TIMEOUT_SECONDS,
    )


async def relay(answer: StartedAnswer, seconds: float) -> AsyncIterator[ServerSentEvent]:
    """The answer's events as SSE: `token`s, then `done` or `error`."""
    # closed with this generator however it ends: a client that left stops the answer
    async with aclosing(answer_events(answer.subscription, seconds, stop=answer.stop)) as events:
        async for event in events:
            if event.type == "token":
                yield ServerSentEvent(data=json.dumps({"text": event.text}), event="token")
            elif event.type == "done" and event.done is not None:
                yield ServerSentEvent(data=event.done.model_dump_json(), event="done")
            else:
                yield ServerSentEvent(data=json.dumps({"detail": event.text}), event="error")
