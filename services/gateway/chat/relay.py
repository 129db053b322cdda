"""What every way of asking a persona shares (POST /v1/chat, POST /v1/chat/completions): the
question's checks, handing the request to the chat service over NATS request/reply, and reading
its answer back from the stream subject.

The gateway subscribes to the answer's subject before sending the request, so no event can be
missed. When the asker leaves before the answer ends (Stop in the web client, a closed tab,
Ctrl-C, an OpenAI client that hangs up), the chat service is told to abandon it: nothing is
stored.
"""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from uuid import UUID

import anyio
import asyncpg
import nats.errors
from fastapi import HTTPException
from faststream.nats import NatsBroker
from nats.aio.subscription import Subscription

from services.gateway.fair_use.limits import StreamSlot, StreamSlots
from shared.config import ChatSettings
from shared.contracts import (
    ANSWER_SILENCE_SECONDS,
    ChatRequest,
    ChatStreamEvent,
    Request,
    chat_stop_subject,
    chat_stream_subject,
)
from shared.db import files

ACCEPT_TIMEOUT_SECONDS = 5.0
SERVICE_GONE = "The chat service stopped while answering; nothing was saved: try again."
NOT_RUNNING = (
    "The chat service is not running (or did not answer): start it with `artisan up`"
    " (or `artisan run chat`) and try again."
)
Stop = Callable[[], Awaitable[None]]


def check_message(message: str, settings: ChatSettings) -> None:
    """A question to answer: not empty, and within ARTISAN_MAX_MESSAGE_CHARS (else 413)."""
    if not message.strip():
        raise HTTPException(422, "The message is empty: write a question or a message.")
    if len(message) > settings.max_message_chars:
        raise HTTPException(
            413,
            f"The message has {len(message)} characters; the limit is"
            f" {settings.max_message_chars}. Shorten it, or upload the text as a file and"
            " attach it.",
        )


async def check_attachments(pool: asyncpg.Pool, user_id: UUID, file_ids: list[UUID]) -> None:
    """Each attachment is the user's (else 404) and was processed (a failed file is a 422)."""
    for file_id in dict.fromkeys(file_ids):
        record = await files.get_file(pool, user_id=user_id, file_id=file_id)
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


@dataclass
class StartedAnswer:
    """An answer the chat service accepted: its events arrive on `subscription`; `slot` is the
    user's open-stream slot it holds until it ends; `stop` tells the service to abandon it."""

    subscription: Subscription
    slot: StreamSlot
    stop: Stop


async def start_answer(
    broker: NatsBroker, streams: StreamSlots, request: ChatRequest
) -> StartedAnswer:
    """Take a stream slot (429 over the limit), then hand the request to the chat service (503
    when none answers; the slot is then free again)."""
    slot = streams.take(request.user_id)  # before the request: a refused stream starts no answer
    try:
        subscription = await _accepted(broker, request)
    except BaseException:
        slot.release()
        raise
    return StartedAnswer(subscription, slot, _stopper(broker, request))


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


def _stopper(broker: NatsBroker, request: ChatRequest) -> Stop:
    async def stop() -> None:
        await broker.connection.publish(chat_stop_subject(request.request_id), b"")

    return stop


async def answer_events(
    subscription: Subscription, seconds: float, *, stop: Stop
) -> AsyncIterator[ChatStreamEvent]:
    """The answer's `token`s, then its `done` or `error` (an `error` too when no complete answer
    came within `seconds`); then unsubscribe. Ended any other way (the asker left, the time
    limit), the answer is stopped: no one will read it, and a stopped answer is not stored."""
    ended = False
    try:
        async for event in _events(subscription, seconds):
            if event.type == "token":
                yield event
                continue
            ended = True
            if event.type == "done" and event.done is not None:
                yield event
            else:
                yield ChatStreamEvent(type="error", text=event.text or "The answer failed.")
            return
        yield ChatStreamEvent(
            type="error",
            text=f"No complete answer within {seconds:.0f} s; nothing was saved: try again.",
        )
    finally:
        # shielded: a client that left cancels this generator, and the stop must still go out
        with anyio.CancelScope(shield=True):
            await subscription.unsubscribe()
            if not ended:
                await stop()


async def _events(subscription: Subscription, seconds: float) -> AsyncIterator[ChatStreamEvent]:
    """The answer's events until `seconds` have passed, or until the chat service has said
    nothing for ANSWER_SILENCE_SECONDS (it says "alive" while it works: silence means it died
    mid-answer, and the asker hears so now rather than at the time limit)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = await subscription.next_msg(timeout=min(left, ANSWER_SILENCE_SECONDS))
        except TimeoutError:
            if time.monotonic() < deadline:
                yield ChatStreamEvent(type="error", text=SERVICE_GONE)
            return
        event = ChatStreamEvent.model_validate_json(message.data)
        if event.type != "alive":
            yield event
