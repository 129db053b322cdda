"""One chat turn, start to end: redact, gather context, stream 1A, check with 1B, store. What
the asker gets, streamed and whole, carries no remote image and no link (answer_links.py).

Events go out on chat.stream.<request_id>: `token`s, then one `done` — or one `error`, in which
case nothing was stored, or one `stopped` when the asker left (chat.stop.<request_id>) before the
answer was complete: it is abandoned (the model call cancelled) and nothing is stored. Once
complete, a turn is stored whole. The turn id derives from the request id, so a retried request
stores the same row once. Citations are numbered 1…n in order of first mention, in the streamed
tokens, the answer, its citations and the stored turn alike.
"""

import asyncio
import logging
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

import asyncpg
from faststream.nats import NatsBroker
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from services.chat.answer_links import AnswerLinks, clean_answer
from services.chat.failures import in_words, logged
from services.chat.sources import final_citations, load_passages
from services.chat.streaming import pieces_of, send_tokens
from services.chat.tools.turn import references_only, tools_for_turn
from shared.config import chat_settings, model_settings
from shared.context_client import request_context
from shared.contracts import (
    ALIVE_SECONDS,
    ChatDone,
    ChatRequest,
    ChatStreamEvent,
    Citation,
    ContextRequest,
    Usage,
    chat_stop_subject,
    chat_stream_subject,
)
from shared.db.turns import NewTurn, insert_turn
from shared.domain import REFUSAL
from shared.personas import Persona, get_persona, is_name_question, persona_names
from shared.providers import registry
from shared.providers.base import AnswerInput, AnswerStream
from shared.secrets import redact
from shared.telemetry import current_trace_context
from shared.text.citations import (
    StreamedMarkers,
    cited_refs,
    first_mention_numbers,
    renumber_markers,
)
from shared.usage import WorkContext, working_on

logger = logging.getLogger(__name__)
T = TypeVar("T")
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


async def start_answer(
    broker: NatsBroker, pool: asyncpg.Pool, request: ChatRequest
) -> asyncio.Task[None]:
    """Listen for a stop before accepting (the gateway may send one as soon as it is told the
    request was accepted), then answer in the background."""
    stop = asyncio.Event()

    async def on_stop(_message: Msg) -> None:
        stop.set()

    stops = await broker.connection.subscribe(chat_stop_subject(request.request_id), cb=on_stop)
    return asyncio.create_task(answer_turn(broker, pool, request, stop, stops))


async def answer_turn(
    broker: NatsBroker,
    pool: asyncpg.Pool,
    request: ChatRequest,
    stop: asyncio.Event,
    stops: Subscription,
) -> None:
    """Answer the request on its stream; any failure becomes an `error` event, a stop before
    the answer is complete a `stopped` one."""
    subject = chat_stream_subject(request.request_id)
    turn_id = turn_id_for(request)
    alive = asyncio.create_task(_say_alive(broker, subject))
    try:
        with working_on(WorkContext(user_id=request.user_id, turn_id=turn_id)):
            answered = await until_stopped(_answer(broker, pool, request, subject), stop)
            if answered is not None:
                stored = await insert_turn(pool, _new_turn(request, turn_id, answered))
                answered.conversation_id = stored["conversation_id"]
    except Exception as exc:
        # the whole error, here only: a provider's reply may echo the key it was sent
        logger.error("chat request %s failed:\n%s", request.request_id, logged(exc))
        event = ChatStreamEvent(type="error", text=_told(exc))
    else:
        if answered is None:
            logger.info("chat request %s stopped by the asker; nothing stored", request.request_id)
            event = ChatStreamEvent(type="stopped")
        else:
            event = ChatStreamEvent(type="done", done=_done(turn_id, answered))
    finally:
        alive.cancel()
        await stops.unsubscribe()
    await broker.publish(event, subject)
    await broker.connection.flush()


def _told(exc: Exception) -> str:
    """What the asker hears: never an exception's name, nor a provider's address or reply."""
    return str(exc) if isinstance(exc, ChatFailed) else in_words(exc, model_settings().llm_model)


async def _say_alive(broker: NatsBroker, subject: str) -> None:
    """While the answer is worked on — a model may think a minute before its first token — the
    gateway hears that this service still is; it ends an answer that falls silent."""
    while True:
        await asyncio.sleep(ALIVE_SECONDS)
        await broker.publish(ChatStreamEvent(type="alive"), subject)


async def until_stopped(work: Awaitable[T], stop: asyncio.Event) -> T | None:
    """The work's result, or None when `stop` is set first: the work is then cancelled (a model
    call in flight with it) and waited for, so nothing it would have done happens later."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait({task})
    return None if task.cancelled() else task.result()


@dataclass
class Answered:
    persona: Persona
    message: str  # redacted
    outcome: Outcome
    citations: list[Citation]
    sections: list[dict[str, object]]
    conversation_id: uuid.UUID | None = None  # where the turn was stored, once it is


async def _answer(
    broker: NatsBroker, pool: asyncpg.Pool, request: ChatRequest, subject: str
) -> Answered:
    """Stream the answer and check it; stored by the caller once complete."""
    persona = get_persona(request.persona)
    if persona is None:
        raise ChatFailed(f"Unknown persona {request.persona!r}: choose one of {persona_names()}.")
    message = redact(request.message).text  # before anything reads, sends or stores it
    if is_name_question(message):
        outcome = Outcome(persona.profile, False, Usage(model="persona-profile"), [])
        await send_tokens(
            broker, subject, pieces_of(persona.profile), StreamedMarkers([]), AnswerLinks()
        )
    else:
        outcome = await _grounded(broker, pool, request, persona, message, subject)
    _clean(outcome, message)
    citations: list[Citation] = []
    if outcome.input is not None and not outcome.refused:
        citations = final_citations(outcome.answer, outcome.input.bundle, outcome.input.passages)
    # the context's refs are global ranks: each answer's own sources become 1…n
    numbers = first_mention_numbers(outcome.answer, [c.ref for c in citations])
    outcome.answer = renumber_markers(outcome.answer, numbers)
    citations = sorted(
        (c.model_copy(update={"ref": numbers[c.ref]}) for c in citations), key=lambda c: c.ref
    )
    sections = [] if outcome.input is None else outcome.input.bundle.sections
    section_sizes = [{"name": s.name, "tokens": s.tokens} for s in sections]
    return Answered(persona, message, outcome, citations, section_sizes)


def _sources(outcome_input: AnswerInput | None, message: str) -> list[str]:
    """The texts whose addresses an answer may show whole: the asker's own message and the
    passages it was given (their files, turns and facts)."""
    return [message, *(outcome_input.passages.values() if outcome_input else ())]


def _clean(outcome: Outcome, message: str) -> None:
    """The whole answer cleaned as its tokens were: call 1B may have rewritten it."""
    sources = _sources(outcome.input, message)
    outcome.answer = clean_answer(outcome.answer, sources)
    outcome.removed = [clean_answer(statement, sources) for statement in outcome.removed]


def _new_turn(request: ChatRequest, turn_id: uuid.UUID, answered: Answered) -> NewTurn:
    outcome = answered.outcome
    return NewTurn(
        id=turn_id,
        user_id=request.user_id,
        persona_name=answered.persona.name,
        user_message=answered.message,
        ai_response=redact(outcome.answer).text,  # as import stores it: a quote may hold one
        model=outcome.usage.model,
        prompt_tokens=outcome.usage.prompt_tokens,
        completion_tokens=outcome.usage.completion_tokens,
        attachments=request.attachments,
        conversation_id=request.conversation_id,
        citations=[c.model_dump(mode="json") for c in answered.citations],
        context_sections=answered.sections,
        trace_context=current_trace_context(),
    )


def _done(turn_id: uuid.UUID, answered: Answered) -> ChatDone:
    outcome = answered.outcome
    return ChatDone(
        turn_id=turn_id,
        conversation_id=answered.conversation_id,
        persona=answered.persona.name,
        answer=outcome.answer,
        citations=answered.citations,
        sections=answered.sections,
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
        conversation_id=request.conversation_id,
        recent=request.recent,  # an API caller's own earlier messages: P1 for this answer
    )
    bundle = await request_context(broker, context_request, timeout=CONTEXT_TIMEOUT_SECONDS)
    tools = await tools_for_turn(pool, request, turn_id_for(request))
    bundle = references_only(bundle, tools, message)  # a tool reads attached files itself
    passages = await load_passages(pool, request.user_id, bundle)
    answer_input = AnswerInput(persona, message, bundle, passages, tools)
    stream = registry.answerer().stream_answer(answer_input)
    markers = StreamedMarkers(reference.ref for reference in bundle.references)
    links = AnswerLinks(_sources(answer_input, message))
    draft = await send_tokens(broker, subject, stream, markers, links)
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
