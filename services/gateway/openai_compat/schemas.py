"""The JSON of the OpenAI-compatible API (/v1/chat/completions, /v1/models), as OpenAI's clients
read it, with Artisan's extras (`citations`, `artisan`) beside OpenAI's fields, where a client
that does not know them ignores them."""

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from services.gateway.errors import StorableText
from shared.contracts import Citation

MODEL_PREFIX = "artisan-"  # a persona `gunnar` is the model `artisan-gunnar`
MAX_MESSAGES = 1_000  # a chat's whole history; the body limit bounds its size
MAX_ATTACHMENTS = 100
Role = Literal["system", "developer", "user", "assistant", "tool", "function"]


class ContentPart(BaseModel):
    """A part of a message's content: text is read, any other part (an image) is ignored."""

    type: str = Field(max_length=100)
    text: StorableText | None = None


class ChatMessage(BaseModel):
    role: Role = Field(description="tool and function messages are ignored")
    content: StorableText | list[ContentPart] | None = Field(
        None, description="text, or parts whose text parts are read"
    )

    @property
    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(part.text for part in self.content if part.text)
        return self.content or ""


class StreamOptions(BaseModel):
    include_usage: bool = Field(False, description="a last chunk with the usage, no choices")


class ChatCompletionBody(BaseModel):
    """OpenAI's request. The rest of its fields (temperature, max_tokens, tools, ...) are
    accepted and ignored: the persona and the configured model decide how the answer is made."""

    model: str = Field(max_length=100, description="artisan-<persona>, from GET /v1/models")
    messages: list[ChatMessage] = Field(
        min_length=1,
        max_length=MAX_MESSAGES,
        description="the last user message is the question; the ones before it are this"
        " answer's recent context (P1), system/developer ones its instructions",
    )
    stream: bool = False
    stream_options: StreamOptions | None = None
    attachments: list[UUID] = Field(
        default_factory=list,
        max_length=MAX_ATTACHMENTS,
        description="Artisan's extra: ids of your files the answer may use (none: all)",
    )


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ArtisanExtras(BaseModel):
    """Where the turn was stored, and what the answer's check did."""

    turn_id: UUID = Field(description="the stored turn (GET /v1/turns/{id})")
    conversation_id: UUID = Field(description="the conversation it was stored in")
    persona: str
    refused: bool = Field(description="no source matched: the answer says so")
    removed: list[str] = Field(description="sentences the answer's check removed")


class AssistantMessage(BaseModel):
    role: Literal["assistant"]
    content: str


class Choice(BaseModel):
    index: int
    message: AssistantMessage
    finish_reason: Literal["stop"]


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    citations: list[Citation] = Field(description="what each [Ref: N] in the answer quotes")
    artisan: ArtisanExtras


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int
    delta: Delta
    finish_reason: Literal["stop"] | None


class ChatCompletionChunk(BaseModel):
    """One `data:` line of a streamed answer: the role, then text, then the end (with the
    citations), then with stream_options.include_usage the usage (no choices); then [DONE]."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None
    citations: list[Citation] | None = Field(None, description="on the last choice chunk")
    artisan: ArtisanExtras | None = Field(None, description="on the last choice chunk")


class ModelCard(BaseModel):
    id: str = Field(description="artisan-<persona>")
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "artisan"
    name: str = Field(description="the persona's display name")
    description: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]
