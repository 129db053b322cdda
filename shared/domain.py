"""Artisan's domain types: what files, chunks, cuts, turns and facts are, and what an answer is
written from (the context, its citations, a model's usage), for every layer."""

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

# the answer when no source answers the question (seed 001: refuse rather than guess)
REFUSAL = "I can't find that in your files or our past conversations."
GLOBAL_SCOPE = "global"  # an instruction for every persona, not only the one it was told to


class FileType(StrEnum):
    STRATEGIC = "strategic"
    FACTUAL = "factual"
    MIXED = "mixed"


class ChunkType(StrEnum):
    STRATEGIC = "strategic"
    FACTUAL = "factual"


@dataclass(frozen=True)
class ChunkSpan:
    """A logical chunk of a text: [start, end) character offsets, a title and a short summary."""

    start: int
    end: int
    title: str
    summary: str = field(default="", compare=False)


@dataclass(frozen=True)
class ArtisanCut:
    """Compressed understanding of a strategic chunk."""

    chunk_essence: str
    decision_arc_summary: str  # 50-150 characters: the search key
    salience_score: int  # 1-10


def embedding_text(chunk_type: str, title: str, text: str, decision_arc: str | None) -> str:
    """What a chunk is found by: a strategic chunk by its decision arc, a factual one (or a
    strategic one not yet cut) by its title and raw text."""
    if chunk_type == ChunkType.STRATEGIC and decision_arc:
        return decision_arc
    return f"{title}\n{text}"


class TurnCut(BaseModel):
    """The Artisan Cut of a conversation turn (seed 002), what the journal stores."""

    boss_essence: str = Field(description="what the user said, compressed")
    persona_name: str = Field(description="the persona that answered")
    persona_essence: str = Field(description="what the persona answered, compressed")
    decision_arc_summary: str = Field(description="50-150 characters: the search key")
    salience_score: int = Field(ge=1, le=10)
    is_instruction: bool = Field(False, description="the user gave a lasting behavioural directive")
    instruction_scope: str | None = Field(
        None, description="'global' or the persona's name when is_instruction, else null"
    )
    instruction: str | None = Field(
        None,
        description="when is_instruction: the directive alone, in the user's words (what P3 and"
        " the memory panel show); else null",
    )


class MemoryFact(BaseModel):
    """A durable fact about the user or their company, extracted from a turn (seed 001)."""

    kind: Literal["user", "company"] = Field(description="about the user, or their company")
    fact: str = Field(min_length=1, description="one short sentence, in the third person")
    confidence: float = Field(ge=0, le=1, description="kept only above 0.8")


# --- what an answer is written from: the context, its sources, the model's usage -----------------


class Citation(BaseModel):
    """A numbered source: a passage of a file (file_id), a past turn of the journal (turn_id) or
    a memory fact about the user or their company (fact_id)."""

    ref: int = Field(description="the N of [Ref: N]")
    file_id: UUID | None = Field(None, description="set for file passages")
    turn_id: UUID | None = Field(None, description="set for journal sources")
    fact_id: UUID | None = Field(None, description="set for memory facts (GET /v1/memory)")
    filename: str = ""
    chunk_id: UUID | None = None
    title: str = Field("", description="section title, or the turn's decision arc")
    char_start: int | None = None
    char_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    snippet: str = Field(
        description="an exact substring of the chunk's text (or the cut's); a fact's own words"
    )


class ContextItem(BaseModel):
    """One thing loaded into the context, as the model will read it."""

    kind: str = Field(
        description="turn | journal | instruction | memory_fact | chunk | file_summary"
        " | section_summary | attachment"
    )
    id: UUID = Field(description="turn id, fact id, chunk id or file id: nothing enters twice")
    text: str = Field(description="the rendered text that enters the prompt")
    tokens: int
    ref: int | None = Field(None, description="citation number when the item can be cited")
    score: float | None = Field(None, description="retrieval score, where ranked")
    created_at: datetime | None = None


class ContextSection(BaseModel):
    name: str = Field(
        description="recent_turns (P1) | starred (P2) | instructions (P3) | memory (P3)"
        " | journal (P4) | recalled (P5) | files"
    )
    priority: str = Field(description="P1..P5, or F for file context")
    items: list[ContextItem] = Field(default_factory=list)
    tokens: int = 0
    truncated: int = Field(0, description="items left out to stay under the cap")


class ContextBundle(BaseModel):
    persona: str
    query: str
    path: str = Field(description="summary | search: how file context was chosen (seed 003)")
    sections: list[ContextSection]
    references: list[Citation] = Field(description="what [Ref: N] resolves to")
    total_tokens: int
    cap_tokens: int = Field(description="40% of the model's window: never exceeded")
    retrieval_confidence: float = Field(description="0-1: how well files and journal match")
    journal_entries: int = Field(description="journal rows the user has (P5 runs above 100)")


class Usage(BaseModel):
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
