"""The JSON answers the prompts ask for, as pydantic models the transport validates against.

Validation is lenient where a model's slip is harmless (" Strategic", 7.0, "12") and strict
where guessing would be wrong (a missing field, an unknown file type).
"""

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from shared.domain import ChunkType, FileType


def _rounded(value: Any) -> Any:
    """7.0 or 7.6 from a model that writes numbers as floats: the nearest whole number."""
    return round(value) if isinstance(value, float) else value


def _label(value: Any) -> Any:
    return value.strip().strip("'\"").lower() if isinstance(value, str) else value


def _text(value: Any) -> Any:
    return "" if value is None else value


WholeNumber = Annotated[int, BeforeValidator(_rounded)]
OptionalText = Annotated[str, BeforeValidator(_text)]  # null from a model reads as ""


class FileClassification(BaseModel):
    file_type: Annotated[FileType, BeforeValidator(_label)] = Field(
        description="strategic, factual or mixed"
    )
    reason: OptionalText = Field("", description="one sentence on why")


class ChunkClassification(BaseModel):
    chunk_type: Annotated[ChunkType, BeforeValidator(_label)] = Field(
        description="strategic or factual"
    )
    reason: OptionalText = Field("", description="one sentence on why")


class ProposedChunk(BaseModel):
    start: WholeNumber = Field(description="offset of the chunk's first character, counted from 0")
    end: WholeNumber = Field(description="offset just after the chunk's last character")
    title: OptionalText = Field("", description="at most ten words, specific")
    summary: OptionalText = Field("", description="one or two sentences on what the chunk says")


class ChunkingAnswer(BaseModel):
    chunks: list[ProposedChunk] = Field(description="chunks in text order, covering the text")


class CutAnswer(BaseModel):
    chunk_essence: str = Field(description="the compressed understanding, 2-5 sentences")
    decision_arc_summary: str = Field(description="50-150 characters: the search key")
    salience_score: WholeNumber = Field(
        description="1-10: how much the chunk matters for decisions"
    )


class TurnCutAnswer(BaseModel):
    boss_essence: str = Field(description="what the user said, compressed")
    persona_name: OptionalText = Field("", description="the persona that answered, lower case")
    persona_essence: str = Field(description="what the persona answered, compressed")
    decision_arc_summary: str = Field(description="50-150 characters: the search key")
    salience_score: WholeNumber = Field(description="1-10: how much the turn matters for decisions")
    is_instruction: bool = Field(False, description="a lasting behavioural directive")
    instruction_scope: str | None = Field(
        None, description="'global' or a persona's name when is_instruction, else null"
    )
    instruction: OptionalText = Field(
        "", description="the directive alone, in the boss's words, when is_instruction"
    )


class SummaryAnswer(BaseModel):
    summary: str = Field(description="the summary, plain text")
