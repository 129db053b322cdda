"""The model roles, each a small interface; local (offline) and remote implementations are siblings.

Roles: classify, chunk, compress (Artisan Cut 2A), verify (2B), summarise, embed — and, for
conversation turns, the same 2A/2B on a turn and durable memory facts; and the chat answer:
call 1A (Answerer, streamed) and call 1B (AnswerChecker).
"""

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar
from uuid import UUID

from pydantic import BaseModel

from shared.domain import (
    ArtisanCut,
    ChunkSpan,
    ChunkType,
    ContextBundle,
    FileType,
    MemoryFact,
    TurnCut,
    Usage,
)

if TYPE_CHECKING:
    from shared.personas import Persona

ModelT = TypeVar("ModelT", bound=BaseModel)


class Classifier(Protocol):
    async def classify_file(self, text: str) -> FileType: ...

    async def classify_chunk(self, text: str) -> ChunkType: ...


class Chunker(Protocol):
    async def chunk(self, text: str) -> list[ChunkSpan]:
        """Spans in order, contiguous, covering text exactly: 0 .. len(text)."""
        ...


class Compressor(Protocol):
    """Artisan Cut call 2A: compress."""

    async def compress(self, text: str, title: str) -> ArtisanCut: ...

    async def compress_turn(self, user_message: str, ai_response: str, persona: str) -> TurnCut: ...


class Verifier(Protocol):
    """Artisan Cut call 2B: check a cut against its source and correct it."""

    async def verify(self, text: str, title: str, cut: ArtisanCut) -> ArtisanCut: ...

    async def verify_turn(
        self, user_message: str, ai_response: str, persona: str, cut: TurnCut
    ) -> TurnCut: ...


class Summariser(Protocol):
    async def summarise_section(self, text: str, title: str) -> str: ...

    async def summarise_file(
        self, filename: str, sections: list[tuple[str, str]], texts: Sequence[str] = ()
    ) -> str:
        """A whole-file summary from (title, section summary) pairs in document order; `texts`,
        the sections' own texts where the caller has them (the offline rule reads a note's
        decisions, figures, owners and dates there; a model reads the summaries)."""
        ...


class MemoryExtractor(Protocol):
    """Durable facts about the user (role, stable preferences) and the company (recurring
    bottlenecks, process learnings) stated in one turn; questions and hypotheticals are not.

    `instruction_scope` is set when the turn holds a lasting instruction ('global' or the
    persona's name, as its cut found): facts reach every persona, so the directive itself is
    never one, and the implementation decides which of the message's words are the directive.
    """

    async def extract_facts(
        self,
        user_message: str,
        ai_response: str,
        persona: str,
        *,
        instruction_scope: str | None = None,
    ) -> list[MemoryFact]: ...


class Embedder(Protocol):
    model: str  # names the embedding space: vectors of different models never mix
    dimension: int

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]: ...


class ChatModel(Protocol):
    """A chat model that answers with JSON validated against a pydantic model."""

    provider: str
    model: str

    async def complete_json(
        self,
        *,
        role: str,
        system: str,
        user: str,
        schema: type[ModelT],
        max_tokens: int | None = None,
    ) -> ModelT:
        """One validated answer; `role` names the pipeline role for the usage record, and the
        answer may be at most `max_tokens` long (default: the role's budget)."""
        ...


# --- chat answers (call 1A streams, call 1B checks) ----------------------------------------------


class ToolBox(Protocol):
    """Tools the answering model may call in one turn (seeds 001, 004); the chat service's.

    `specs` are OpenAI `tools` entries; `attachments` the (file id, name) of each attached file,
    which a tool reads itself, so the prompt carries only `[Attached: name]` references.
    """

    specs: list[dict[str, Any]]
    attachments: list[tuple[UUID, str]]

    async def call(self, name: str, arguments: str) -> str:
        """What the model reads back: the result, or what was wrong with the call (never raises
        for a bad call: the model may correct it)."""
        ...


@dataclass(frozen=True)
class AnswerInput:
    """What an answer is written from: the persona, the question, the context and the sources.

    `passages` maps each citable ref to the text its sentences may be quoted from: the stored
    chunk text of a file reference, the cut of a journal reference. `tools`, when set, may be
    called while the answer is written.
    """

    persona: "Persona"
    question: str
    bundle: ContextBundle
    passages: dict[int, str] = field(default_factory=dict)
    tools: ToolBox | None = None


class AnswerStream(Protocol):
    """An answer being written: iterate for text pieces; afterwards `usage` and `refused` hold."""

    usage: Usage
    refused: bool

    def __aiter__(self) -> AsyncIterator[str]: ...


@dataclass(frozen=True)
class CheckedAnswer:
    """Call 1B's verdict: the answer with unsupported sentences removed, and those sentences."""

    answer: str
    removed: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Answerer(Protocol):
    """Call 1A: the persona's answer from the context, with [Ref: N] citations, streamed."""

    model: str

    def stream_answer(self, request: AnswerInput) -> AnswerStream: ...


class AnswerChecker(Protocol):
    """Call 1B: every cited claim must be supported by its cited passage."""

    async def check_answer(self, request: AnswerInput, answer: str) -> CheckedAnswer: ...
