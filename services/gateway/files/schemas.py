"""The JSON of the files endpoints: files, their chunks and the model calls made for them."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from shared.progress import row_message

FileStatus = Literal["processing", "ready", "failed"]
FileType = Literal["strategic", "factual", "mixed"]


class FileRecord(BaseModel):
    """An uploaded file and where it is in the pipeline."""

    id: UUID
    filename: str = Field(
        description="the uploaded name, with paths and control characters removed"
    )
    media_type: str
    size: int = Field(description="bytes uploaded")
    file_type: FileType | None = Field(description="set once the file has been classified")
    status: FileStatus
    processing_stage: str = Field(
        description="uploaded | extracting | classifying | chunking | processing | ready | failed"
    )
    progress: int = Field(ge=0, le=100)
    progress_message: str = Field(
        description="the stage as progress events word it, e.g. 'Compressing chunks 5/12'"
    )
    total_chunks: int
    processed_chunks: int
    error_message: str | None = Field(description="why the file failed, and what to do")
    uploaded_at: datetime
    updated_at: datetime
    summary: str | None
    version: int = Field(
        description="the newest version: PUT /v1/files/{id} makes a new one, same id"
    )
    live_version: int | None = Field(
        description="the version search reads; the previous one until a new version is ready"
        " (null until the first is)"
    )
    reused_chunks: int = Field(
        description="chunks this version kept unchanged from the previous one (no model call)"
    )
    duplicate: bool = Field(
        False, description="true when an upload matched a file you already have (same content)"
    )

    @classmethod
    def from_row(cls, row: Mapping[str, Any], *, duplicate: bool = False) -> "FileRecord":
        computed = {"duplicate", "progress_message"}
        fields = {name: row[name] for name in cls.model_fields if name not in computed}
        return cls(**fields, progress_message=row_message(row), duplicate=duplicate)


class FileList(BaseModel):
    items: list[FileRecord]


class FilePage(BaseModel):
    items: list[FileRecord] = Field(description="newest first (uploaded_at, then id)")
    next: str | None = Field(
        description="pass as `before` for the next (older) page; null on the last page"
    )


class ChunkRecord(BaseModel):
    """A logical section of a file; the Artisan Cut fields are null for factual chunks."""

    id: UUID
    chunk_index: int
    chunk_type: Literal["strategic", "factual"]
    title: str
    char_start: int = Field(description="offset into the text that /content returns")
    char_end: int = Field(description="exclusive")
    line_start: int
    line_end: int
    text: str = Field(description="the exact source slice text[char_start:char_end]")
    summary: str | None = Field(description="a short summary of the section")
    chunk_essence: str | None
    decision_arc_summary: str | None
    salience_score: int | None = Field(description="1–10, strategic chunks only")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "ChunkRecord":
        fields = {name: row[name] for name in cls.model_fields}
        if fields["chunk_type"] == "factual":
            # factual chunks are stored as raw text; any cut fields would be leftovers
            fields.update(chunk_essence=None, decision_arc_summary=None, salience_score=None)
        return cls(**fields)


class ChunkList(BaseModel):
    items: list[ChunkRecord]


class ModelCallRecord(BaseModel):
    """One model call made while processing a file."""

    role: str = Field(description="classify | chunk | compress | verify | summarise | embed")
    provider: str = Field(description="local | openai-compatible | voyage | openai")
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    cost_usd: float = Field(description="estimate from the price table in settings")
    outcome: str = Field(description="ok | invalid (failed validation) | error")
    created_at: datetime


class ModelCallTotals(BaseModel):
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


class ModelCallList(BaseModel):
    items: list[ModelCallRecord]
    totals: ModelCallTotals

    @classmethod
    def from_rows(cls, rows: list[Mapping[str, Any]]) -> "ModelCallList":
        items = [ModelCallRecord(**dict(row)) for row in rows]
        totals = ModelCallTotals(
            calls=len(items),
            prompt_tokens=sum(i.prompt_tokens for i in items),
            completion_tokens=sum(i.completion_tokens for i in items),
            cost_usd=round(sum(i.cost_usd for i in items), 6),
        )
        return cls(items=items, totals=totals)
