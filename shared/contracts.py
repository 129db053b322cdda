"""Every subject, stream, consumer and event model on Artisan's bus, and nowhere else."""

from datetime import datetime
from enum import StrEnum
from uuid import UUID

from pydantic import BaseModel, Field

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


class Consumer(StrEnum):
    """Durable consumer names; every replica of a service joins the same one."""

    EXTRACTOR = "extractor"
    CHUNKER = "chunker"
    COMPRESSOR = "compressor"
    EMBEDDER_COMPRESSED = "embedder-compressed"
    EMBEDDER_FACTUAL = "embedder-factual"
    SUMMARISER = "summariser"


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
    message: str = Field("", description="human-readable stage text")
    updated_at: datetime | None = Field(None, description="when the state was committed")
