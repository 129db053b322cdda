"""POST /v1/chat: a persona's answer as server-sent events — `token`s, then `done` (or `error`).

The request is checked here first (persona, message size, attachments), then handed to the chat
service over NATS request/reply; the answer is relayed from its stream subject, which the gateway
subscribes to before sending the request so no event can be missed. When the asker leaves before
the answer ends (Stop in the web client, a closed tab, Ctrl-C), the chat service is told to
abandon it: nothing is stored.
"""

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated
from uuid import UUID, uuid4

import anyio
import nats.errors
from fastapi import APIRouter, Depends, HTTPException
from faststream.nats import NatsBroker
from nats.aio.subscription import Subscription
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from services.gateway.auth import CurrentUser, ExpensiveUser
from services.gateway.conversation_lookup import conversation_for_question
from services.gateway.deps import Broker, Pool, Streams
from services.gateway.errors import StorableText
from services.gateway.fair_use import HeldEventSource
from services.gateway.schemas import ErrorResponse
from services.gateway.streams import PING_SECONDS, SEND_TIMEOUT_SECONDS
from shared.config import ChatSettings, chat_settings
from shared.contracts import (
    ChatRequest,
    ChatStreamEvent,
    Request,
    chat_stop_subject,
    chat_stream_subject,
)
from shared.db import files
from shared.personas import get_persona, persona_names

router = APIRouter(tags=["chat"])
ACCEPT_TIMEOUT_SECONDS = 5.0
MAX_ATTACHMENTS = 100  # as many as one upload may bring
MAX_MESSAGE_FIELD_CHARS = 100_000  # the schema's bound; the configured limit is checked below
NOT_RUNNING = (
    "The chat service is not running (or did not answer): start it with `artisan up`"
    " (or `artisan run chat`) and try again."
)


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


def get_chat_settings() -> ChatSettings:
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
    if not body.message.strip():
        raise HTTPException(422, "The message is empty: write a question or a message.")
    if len(body.message) > settings.max_message_chars:
        raise HTTPException(
            413,
            f"The message has {len(body.message)} characters; the limit is"
            f" {settings.max_message_chars}. Shorten it, or upload the text as a file and"
            " attach it.",
        )
    for file_id in dict.fromkeys(body.attachments):
        record = await files.get_file(pool, user_id=user.id, file_id=file_id)
        if record is None:
            raise HTTPException(
                404, f"Attachment {file_id} not found: check it with GET /v1/files."
            )
        if record["status"] == "failed":
            raise HTTPException(
                422,
                f"'{record['filename']}' could not be processed, so it cannot be a source:"
                f" {record['error_message']} Retry it, or choose other files.",
            )
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
    slot = streams.take(user.id)  # before the request: a refused stream starts no answer
    try:
        subscription = await _accepted(broker, request)
    except BaseException:
        slot.release()
        raise
    return HeldEventSource(
        relay(subscription, settings.answer_timeout_seconds, stop=_stopper(broker, request)),
        slot=slot,
        ping=PING_SECONDS,
        send_timeout=SEND_TIMEOUT_SECONDS,
    )


async def _accepted(broker: NatsBroker, request: ChatRequest) -> Subscription:
    """Send the request to the chat service; the subscription its answer will stream on."""
    # subscribe first: the service may start streaming as soon as it accepts
    subscription = await broker.connection.subscribe(chat_stream_subject(request.request_id))
    try:
        await broker.request(request, Request.CHAT.value, timeout=ACCEPT_TIMEOUT_SECONDS)
    except (nats.errors.NoRespondersError, TimeoutError) as exc:
        await subscription.unsubscribe()
        raise HTTPException(503, NOT_RUNNING) from exc
    except BaseException:
        await subscription.unsubscribe()
        raise
    return subscription


def _stopper(broker: NatsBroker, request: ChatRequest) -> Callable[[], Awaitable[None]]:
    async def stop() -> None:
        await broker.connection.publish(chat_stop_subject(request.request_id), b"")

    return stop


async def relay(
    subscription: Subscription, seconds: float, *, stop: Callable[[], Awaitable[None]]
) -> AsyncIterator[ServerSentEvent]:
    """The answer's events until `done` or `error` (or the time limit); then unsubscribe. Ended
    any other way (the client left, the time limit), the answer is stopped: no one will read it,
    and a stopped answer is not stored."""
    ended = False
    try:
        async for event in _events(subscription, seconds):
            if event.type == "token":
                yield ServerSentEvent(data=json.dumps({"text": event.text}), event="token")
                continue
            ended = True
            if event.type == "done" and event.done is not None:
                yield ServerSentEvent(data=event.done.model_dump_json(), event="done")
            else:
                yield _error(event.text or "The answer failed.")
            return
        yield _error(f"No complete answer within {seconds:.0f} s; nothing was saved: try again.")
    finally:
        # shielded: a client that left cancels this generator, and the stop must still go out
        with anyio.CancelScope(shield=True):
            await subscription.unsubscribe()
            if not ended:
                await stop()


async def _events(subscription: Subscription, seconds: float) -> AsyncIterator[ChatStreamEvent]:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = await subscription.next_msg(timeout=left)
        except TimeoutError:
            return
        yield ChatStreamEvent.model_validate_json(message.data)


def _error(detail: str) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps({"detail": detail}), event="error")
