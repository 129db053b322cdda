"""What the MCP tools return: small, self-explaining shapes of the REST API's JSON (an assistant
reads them; ids are there to pass to the next tool)."""

from typing import Any
from uuid import UUID

from pydantic import BaseModel, Field

from shared.contracts import Citation, SearchHit


class FileSummary(BaseModel):
    id: UUID = Field(description="pass it to delete_file, or to ask as an attachment")
    filename: str
    status: str = Field(description="queued | processing | ready | failed")
    processing_stage: str
    progress: int = Field(description="0–100")
    chunks: str = Field(description="processed/total passages")
    error_message: str | None = Field(description="why it failed, and what to do")
    duplicate: bool = Field(False, description="the same content was uploaded before: that file")

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "FileSummary":
        return cls(
            **{name: record[name] for name in cls.model_fields if name in record},
            chunks=f"{record['processed_chunks']}/{record['total_chunks']}",
        )


NEXT_PAGE = "more to list: pass it as `before` for the next (older) page; null at the end"


class FileList(BaseModel):
    files: list[FileSummary] = Field(description="newest first")
    next: str | None = Field(None, description=NEXT_PAGE)


class SearchResults(BaseModel):
    hits: list[SearchHit] = Field(description="the passages, best first, each with its file")


class Answer(BaseModel):
    answer: str = Field(description="the persona's answer; [Ref: N] marks cite the sources")
    citations: list[Citation] = Field(
        description="source N of each [Ref: N]: a file passage (filename, lines, snippet), a"
        " past conversation (turn_id) or a memory fact (fact_id)",
    )
    refused: bool = Field(description="no source matched, and the answer says so")
    persona: str
    conversation_id: UUID | None = Field(
        None, description="pass it back to ask to go on in this conversation"
    )
    turn_id: UUID


class Persona(BaseModel):
    name: str = Field(description="what ask takes as `persona`")
    display_name: str
    role: str
    description: str


class PersonaList(BaseModel):
    personas: list[Persona]


class MemoryFact(BaseModel):
    id: UUID = Field(description="pass it to forget_memory_fact")
    kind: str = Field(description="user: about you; company: about your company")
    fact: str
    confidence: float
    created_at: str


class MemoryFacts(BaseModel):
    facts: list[MemoryFact] = Field(description="newest first")
    next: str | None = Field(None, description=NEXT_PAGE)


class Done(BaseModel):
    done: str = Field(description="what was done")
