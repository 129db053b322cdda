"""Artisan's domain types: what files, chunks, cuts, turns and facts are, for every layer."""

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

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
