"""A persona's answer in OpenAI's response shapes: one chat.completion, or the chunks of a
streamed one (server-sent `data:` lines ending with `data: [DONE]`)."""

import json
from dataclasses import dataclass

from sse_starlette import ServerSentEvent

from services.gateway.openai_compat.errors import openai_error_body
from services.gateway.openai_compat.schemas import (
    ArtisanExtras,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    Choice,
    ChunkChoice,
    Delta,
    Usage,
)
from shared.contracts import ChatDone

ANSWER_FAILED = 502  # the answer failed after the request was accepted (a model, a service)


@dataclass(frozen=True)
class Reply:
    """What every part of one reply says alike."""

    id: str
    created: int
    model: str

    def completion(self, done: ChatDone) -> ChatCompletion:
        message = AssistantMessage(role="assistant", content=done.answer)
        return ChatCompletion(
            id=self.id,
            object="chat.completion",
            created=self.created,
            model=self.model,
            choices=[Choice(index=0, message=message, finish_reason="stop")],
            usage=usage_of(done),
            citations=done.citations,
            artisan=extras_of(done),
        )

    def chunk(self, choices: list[ChunkChoice], **extras: object) -> ServerSentEvent:
        chunk = ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=self.model,
            choices=choices,
            **extras,  # type: ignore[arg-type]
        )
        # the extras a chunk does not carry are left out, not sent as null
        return ServerSentEvent(data=chunk.model_dump_json(exclude_unset=True))

    def text(self, delta: Delta) -> ServerSentEvent:
        return self.chunk([ChunkChoice(index=0, delta=delta, finish_reason=None)])

    def end(self, done: ChatDone, *, include_usage: bool) -> list[ServerSentEvent]:
        """The last choice chunk (with the citations), the usage chunk if asked for, [DONE]."""
        last = ChunkChoice(index=0, delta=Delta(), finish_reason="stop")
        events = [self.chunk([last], citations=done.citations, artisan=extras_of(done))]
        if include_usage:
            events.append(self.chunk([], usage=usage_of(done)))
        return [*events, ServerSentEvent(data="[DONE]")]


def usage_of(done: ChatDone) -> Usage:
    prompt, completion = done.usage.prompt_tokens, done.usage.completion_tokens
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def extras_of(done: ChatDone) -> ArtisanExtras:
    return ArtisanExtras.model_validate(done.model_dump(include=set(ArtisanExtras.model_fields)))


def stream_error(message: str) -> ServerSentEvent:
    """A failure once the stream has begun: OpenAI's clients raise it from a `data:` line that
    holds an `error`."""
    return ServerSentEvent(data=json.dumps(openai_error_body(ANSWER_FAILED, message)))
