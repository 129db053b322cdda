"""Every subject, stream, consumer and event model on Artisan's bus, and nowhere else."""

from datetime import datetime
from enum import StrEnum
from uuid import UUID

from pydantic import BaseModel, Field

# What an answer is written from is a domain type (the model providers read it and must not know
# the bus); the bus carries it as it is — the context.build reply, a chat's citations and usage.
from shared.domain import Citation as Citation
from shared.domain import ContextBundle as ContextBundle
from shared.domain import ContextItem as ContextItem
from shared.domain import ContextSection as ContextSection
from shared.domain import Usage as Usage

STREAM_NAME = "ARTISAN"
STREAM_SUBJECTS = ["file.>", "chunk.>", "turn.>"]
PROGRESS_PREFIX = "progress"


class Subject(StrEnum):
    FILE_UPLOADED = "file.uploaded"
    FILE_EXTRACTED = "file.extracted"
    CHUNK_READY_STRATEGIC = "chunk.ready.strategic"
    CHUNK_READY_FACTUAL = "chunk.ready.factual"
    CHUNK_COMPRESSED = "chunk.compressed"
    FILE_EMBEDDED = "file.embedded"  # every chunk stored: time for the whole-file summary
    FILE_READY = "file.ready"
    TURN_COMPLETED = "turn.completed"  # a turn was saved: compress it into the journal
    TURN_COMPRESSED = "turn.compressed"  # its Artisan Cut is stored: embed the decision arc


class Request(StrEnum):
    """Core-NATS request/reply subjects, each served by a queue group of its service's replicas."""

    CONTEXT_BUILD = "context.build"
    CONTEXT_SEARCH = "context.search"  # GET /v1/search: the ranked passages of a question
    CHAT = "chat.request"


class Consumer(StrEnum):
    """Durable consumer names; every replica of a service joins the same one."""

    EXTRACTOR = "extractor"
    CHUNKER = "chunker"
    COMPRESSOR = "compressor"
    EMBEDDER_COMPRESSED = "embedder-compressed"
    EMBEDDER_FACTUAL = "embedder-factual"
    SUMMARISER = "summariser"
    COMPRESSOR_TURNS = "compressor-turns"
    EMBEDDER_TURNS = "embedder-turns"


CHAT_STREAM_PREFIX = "chat.stream"
ALIVE_SECONDS, ANSWER_SILENCE_SECONDS = 2.0, 12.0  # "alive" this often; this silent: gone


def chat_stream_subject(request_id: UUID | str) -> str:
    """Core-NATS subject on which the chat service streams one answer to the gateway."""
    return f"{CHAT_STREAM_PREFIX}.{request_id}"


CHAT_STOP_PREFIX = "chat.stop"


def chat_stop_subject(request_id: UUID | str) -> str:
    """Core-NATS subject on which the gateway tells the chat service that the asker left (Stop,
    a closed tab): an answer not yet complete is abandoned and nothing is stored."""
    return f"{CHAT_STOP_PREFIX}.{request_id}"


def progress_subject(user_id: UUID | str, file_id: UUID | str) -> str:
    """Core-NATS subject of one file's progress events (not persisted: the row is the truth)."""
    return f"{PROGRESS_PREFIX}.{user_id}.{file_id}"


def progress_wildcard(user_id: UUID | str | None = None) -> str:
    return f"{PROGRESS_PREFIX}.{user_id or '*'}.*"


class FileEvent(BaseModel):
    """A file moved to the next pipeline stage."""

    file_id: UUID = Field(description="the file's id")
    user_id: UUID = Field(description="owner; every handler scopes its queries by it")
    attempt: int = Field(1, description="processing attempt; a retry bumps it, stale events drop")

    def message_id(self, subject: Subject) -> str:
        """JetStream de-duplication key: one message per stage and attempt."""
        return f"{subject}:{self.file_id}:{self.attempt}"


class FileUploaded(FileEvent):
    pass


class FileExtracted(FileEvent):
    pass


class FileEmbedded(FileEvent):
    pass


class FileReady(FileEvent):
    total_chunks: int = Field(description="chunks stored for the file")


class ChunkEvent(FileEvent):
    """One chunk moved to the next stage."""

    chunk_id: UUID = Field(description="deterministic id: uuid5(file id, chunk index)")
    chunk_index: int = Field(description="position of the chunk in the document")

    def message_id(self, subject: Subject) -> str:
        return f"{subject}:{self.chunk_id}:{self.attempt}"


class ChunkReady(ChunkEvent):
    pass


class ChunkCompressed(ChunkEvent):
    pass


class ProgressEvent(BaseModel):
    """What SSE clients receive; built from the committed files row."""

    file_id: UUID
    attempt: int = Field(1, description="processing attempt; a retry starts a new one")
    status: str = Field(description="processing | ready | failed")
    stage: str = Field(
        description="uploaded | extracting | classifying | chunking | processing | ready | failed"
    )
    progress: int = Field(ge=0, le=100)
    processed_chunks: int = 0
    total_chunks: int = 0
    reused_chunks: int = Field(
        0, description="chunks an update kept from the previous version (no model call)"
    )
    version: int = Field(1, description="the file's version being processed or live")
    message: str = Field("", description="human-readable stage text")
    updated_at: datetime | None = Field(None, description="when the state was committed")


class TurnEvent(BaseModel):
    """A conversation turn moved to the next stage of its way into the journal."""

    turn_id: UUID = Field(description="the superjournal row")
    user_id: UUID = Field(description="owner; every handler scopes its queries by it")
    attempt: int = Field(1, description="bumped to re-run a stage (re-embedding), else 1")

    def message_id(self, subject: Subject) -> str:
        return f"{subject}:{self.turn_id}:{self.attempt}"


class TurnCompleted(TurnEvent):
    pass


class TurnCompressed(TurnEvent):
    pass


# --- chat and context (request/reply) -----------------------------------------------------------


class ContextRequest(BaseModel):
    user_id: UUID
    persona: str
    query: str
    attachments: list[UUID] = Field(default_factory=list, description="restrict files to these")
    exclude_turn_id: UUID | None = Field(None, description="the turn being answered, if saved")
    conversation_id: UUID | None = Field(None, description="asked in: P1 comes from it alone")
    recent: list[tuple[str, str]] | None = Field(None, description="a caller's P1: (role, text)")


MAX_SEARCH_HITS = 50


class SearchRequest(BaseModel):
    """A question to rank the user's passages for (GET /v1/search)."""

    user_id: UUID = Field(description="owner; only their chunks are searched")
    query: str = Field(min_length=1, description="the question")
    limit: int = Field(10, ge=1, le=MAX_SEARCH_HITS, description="hits wanted, best first")


class SearchHit(BaseModel):
    """A chunk that answers the query, citable down to its characters and lines."""

    ref: int = Field(description="1-based rank")
    file_id: str = Field(description="the file the chunk belongs to")
    filename: str = Field(description="the file's name")
    chunk_id: str = Field(description="the chunk's id")
    title: str = Field(description="the chunk's section title")
    char_start: int = Field(description="first character of the chunk in the file's text")
    char_end: int = Field(description="one past the chunk's last character")
    line_start: int = Field(description="first line of the chunk (1-based)")
    line_end: int = Field(description="last line of the chunk")
    snippet: str = Field(description="an exact substring of the chunk's text")
    score: float = Field(description="reciprocal-rank fusion of BM25 full-text and vector ranks")


class SearchResults(BaseModel):
    items: list[SearchHit] = Field(description="the hits, best first")


class ChatRequest(BaseModel):
    request_id: UUID = Field(description="names the stream subject of the answer")
    user_id: UUID
    persona: str
    message: str
    attachments: list[UUID] = Field(default_factory=list)
    conversation_id: UUID | None = Field(None, description="None: the persona's latest, or new")
    recent: list[tuple[str, str]] | None = Field(None, description="a caller's P1: (role, text)")


class ChatAccepted(BaseModel):
    """The chat service's immediate reply: it took the request and will stream the answer."""

    request_id: UUID


class ChatDone(BaseModel):
    turn_id: UUID
    conversation_id: UUID = Field(description="the conversation the turn was stored in")
    persona: str
    answer: str = Field(description="the final (checked) answer; it may differ from the tokens")
    citations: list[Citation]
    sections: list[dict[str, int | str]] = Field(description="context sections: name, tokens")
    usage: Usage
    removed: list[str] = Field(default_factory=list, description="sentences the check removed")
    refused: bool = Field(False, description="no source matched: the answer says so")


class ChatStreamEvent(BaseModel):
    """One message on chat.stream.<request_id>: a token, the end, an error, or a sign of life."""

    type: str = Field(description="token | done | error | stopped (nothing stored) | alive")
    text: str = ""
    done: ChatDone | None = None
