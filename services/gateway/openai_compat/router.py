"""The OpenAI-compatible API: POST /v1/chat/completions (streamed or not) and GET /v1/models, so
that any OpenAI client — Open WebUI, LibreChat, the `openai` SDK — asks Artisan's personas with
an Artisan API key.

`model` names a persona (`artisan-gunnar`). The last user message is the question; the user and
assistant messages before it are this answer's recent context (P1) in place of a stored
conversation's turns, and system/developer messages are instructions for this answer alone.
Tools and functions the caller offers are ignored, as are sampling settings (temperature,
max_tokens, ...): the persona and the configured model decide. The answer is the one POST
/v1/chat gives (chat/relay.py): cited with `[Ref: N]`, its citations in `citations`, stored and
journaled, in the conversation the API keeps per persona (messages.py).
"""

import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Annotated
from uuid import uuid4

import anyio
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from sse_starlette import ServerSentEvent

from services.gateway.auth import CurrentUser, ExpensiveUser
from services.gateway.chat.relay import (
    StartedAnswer,
    answer_events,
    check_attachments,
    check_message,
    start_answer,
)
from services.gateway.deps import Broker, Pool, Streams
from services.gateway.dispatch.streams import PING_SECONDS, SEND_TIMEOUT_SECONDS
from services.gateway.fair_use.limits import HeldEventSource
from services.gateway.openai_compat.errors import OpenAIErrorResponse, OpenAIHTTPError
from services.gateway.openai_compat.messages import (
    api_conversation,
    caller_context,
    model_id,
    persona_for_model,
    question_of,
)
from services.gateway.openai_compat.replies import ANSWER_FAILED, Reply, stream_error
from services.gateway.openai_compat.schemas import (
    ChatCompletion,
    ChatCompletionBody,
    Delta,
    ModelCard,
    ModelList,
)
from shared.config import ChatSettings, chat_settings
from shared.contracts import ChatDone, ChatRequest
from shared.personas import Persona, get_persona, persona_names

router = APIRouter(tags=["openai"])
LISTED_SINCE = int(time.time())  # a model's `created`: personas are files, read at start
CLIENT_LEFT = 499  # nginx's "client closed request": no one reads this response
_ERRORS = {
    status: {"model": OpenAIErrorResponse, "description": description}
    for status, description in {
        400: "no user message",
        401: "missing or invalid API key",
        404: "unknown model (the message lists the models), or attachment",
        413: "the question is over ARTISAN_MAX_MESSAGE_CHARS",
        422: "invalid request, or a failed attachment",
        502: "the answer failed",
        503: "the chat service is not running",
    }.items()
}


async def get_chat_settings() -> ChatSettings:
    return chat_settings()


def _card(persona: Persona) -> ModelCard:
    return ModelCard(
        id=model_id(persona.name),
        created=LISTED_SINCE,
        name=persona.display_name,
        description=persona.description,
    )


@router.get("/v1/models", response_model=ModelList, responses={401: _ERRORS[401]})
async def list_models(_user: CurrentUser) -> ModelList:
    """One model per persona: `artisan-<persona>`."""
    personas = (get_persona(name) for name in persona_names())
    return ModelList(data=[_card(persona) for persona in personas if persona is not None])


@router.get(
    "/v1/models/{model}", response_model=ModelCard, responses={401: _ERRORS[401], 404: _ERRORS[404]}
)
async def get_model(model: str, _user: CurrentUser) -> ModelCard:
    return _card(persona_for_model(model))


@router.post(
    "/v1/chat/completions",
    response_model=ChatCompletion,
    responses={
        200: {
            "content": {"text/event-stream": {}},
            "description": "with `stream: true`: chat.completion.chunk `data:` lines, the last"
            " choice chunk carrying `citations`, then `data: [DONE]`",
        },
        **_ERRORS,
    },
)
async def chat_completions(
    body: ChatCompletionBody,
    request: Request,
    user: ExpensiveUser,
    pool: Pool,
    broker: Broker,
    streams: Streams,
    settings: Annotated[ChatSettings, Depends(get_chat_settings)],
) -> ChatCompletion | Response:
    """Ask the persona `model` names; the answer cites your files with [Ref: N]."""
    persona = persona_for_model(body.model)
    question = question_of(body.messages)
    message = body.messages[question].text
    check_message(message, settings)
    await check_attachments(pool, user.id, body.attachments)
    chat_request = ChatRequest(
        request_id=uuid4(),
        user_id=user.id,
        persona=persona.name,
        message=message,
        attachments=list(dict.fromkeys(body.attachments)),
        conversation_id=await api_conversation(pool, user.id, persona.name),
        recent=caller_context(
            body.messages,
            question,
            recent_turns=settings.recent_turns,
            max_chars=settings.max_message_chars,
        ),
    )
    answer = await start_answer(broker, streams, chat_request)
    reply = Reply(f"chatcmpl-{chat_request.request_id.hex}", int(time.time()), body.model)
    seconds = settings.answer_timeout_seconds
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return HeldEventSource(
            _chunks(answer, seconds, reply, include_usage=include_usage),
            slot=answer.slot,
            ping=PING_SECONDS,
            send_timeout=SEND_TIMEOUT_SECONDS,
        )
    try:
        return await _completion(request, answer, seconds, reply)
    finally:
        answer.slot.release()


async def _chunks(
    answer: StartedAnswer, seconds: float, reply: Reply, *, include_usage: bool
) -> AsyncIterator[ServerSentEvent]:
    """The answer as it is written: the role, each piece of text, then the end."""
    yield reply.text(Delta(role="assistant", content=""))
    # closed with this generator however it ends: a client that left stops the answer
    async with aclosing(answer_events(answer.subscription, seconds, stop=answer.stop)) as events:
        async for event in events:
            if event.type == "token":
                yield reply.text(Delta(content=event.text))
            elif event.type == "done" and event.done is not None:
                for last in reply.end(event.done, include_usage=include_usage):
                    yield last
            else:
                yield stream_error(event.text)


async def _completion(
    request: Request, answer: StartedAnswer, seconds: float, reply: Reply
) -> ChatCompletion | Response:
    """The whole answer once it is done; a caller that hangs up first stops it (nothing is
    stored), as closing a stream does."""
    done: ChatDone | None = None
    failure = ""
    events = answer_events(answer.subscription, seconds, stop=answer.stop)
    async with anyio.create_task_group() as group:
        group.start_soon(_cancel_when_gone, request, group.cancel_scope)
        async with aclosing(events):
            async for event in events:
                if event.type == "done":
                    done = event.done
                elif event.type != "token":
                    failure = event.text
        group.cancel_scope.cancel()  # the answer ended: stop watching for the caller leaving
    if failure:
        raise OpenAIHTTPError(ANSWER_FAILED, failure, code="answer_failed")
    if done is None:
        return Response(status_code=CLIENT_LEFT)
    return reply.completion(done)


async def _cancel_when_gone(request: Request, scope: anyio.CancelScope) -> None:
    """Once the body is read, the next ASGI message is the client disconnecting."""
    while (await request.receive())["type"] != "http.disconnect":
        continue
    scope.cancel()
