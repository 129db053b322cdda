"""The JSON of the conversation-memory endpoints: turns, the journal and instructions."""

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from services.gateway.errors import StorableText
from shared.memory_rule import audience
from shared.text.citations import first_mention_numbers, renumber_markers

MAX_IMPORT_TURNS = 1000
# an imported message may be longer than one typed into the chat (a pasted document), not unbounded
MAX_IMPORT_FIELD_CHARS = 100_000


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


class TurnRecord(BaseModel):
    """One exchange in full, as the superjournal keeps it."""

    id: UUID
    conversation_id: UUID = Field(description="the conversation it belongs to")
    persona: str
    user_message: str = Field(description="what the user wrote (secrets redacted)")
    ai_response: str
    citations: list[dict[str, Any]] = Field(
        description="the sources the answer cited, `ref` 1…n as [Ref: N] in the answer"
    )
    context_sections: list[dict[str, Any]] = Field(
        default_factory=list,
        description="what the answer's context was built from: {name, tokens} per section",
    )
    is_starred: bool = Field(description="starred turns are always in the persona's context")
    attachments: list[UUID]
    model: str
    prompt_tokens: int
    completion_tokens: int
    journal_status: Literal["pending", "journaled", "failed"] = Field(
        description="pending until its Artisan Cut is stored and embedded"
    )
    journal_error: str | None = Field(description="why journaling failed, when it did")
    imported: bool
    created_at: datetime

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "TurnRecord":
        answer, citations = numbered_from_one(row["ai_response"], _json(row["citations"]))
        return cls(
            id=row["id"],
            conversation_id=row["conversation_id"],
            persona=row["persona_name"],
            user_message=row["user_message"],
            ai_response=answer,
            citations=citations,
            context_sections=_json(row["context_sections"]) or [],
            is_starred=row["is_starred"],
            attachments=list(row["attachments"]),
            model=row["model"],
            prompt_tokens=row["prompt_tokens"],
            completion_tokens=row["completion_tokens"],
            journal_status=row["journal_status"],
            journal_error=row["journal_error"],
            imported=row["imported"],
            created_at=row["created_at"],
        )


def numbered_from_one(
    answer: str, citations: list[dict[str, Any]]
) -> tuple[str, list[dict[str, Any]]]:
    """A turn stored before answers numbered their own citations (its refs were the context's
    global ranks: 3, 13, 57), numbered 1…n as a new one is; a new one comes back unchanged, and
    so does one citing nothing (an imported reply's text is kept as written)."""
    if not citations:
        return answer, citations
    numbers = first_mention_numbers(answer, [citation["ref"] for citation in citations])
    renumbered = [{**citation, "ref": numbers[citation["ref"]]} for citation in citations]
    return renumber_markers(answer, numbers), sorted(renumbered, key=lambda c: c["ref"])


class TurnPage(BaseModel):
    items: list[TurnRecord]
    next: str | None = Field(description="pass as `before` for the next (older) page")


class TurnList(BaseModel):
    items: list[TurnRecord]


class ImportTurn(BaseModel):
    persona: StorableText = Field(
        max_length=100, description="a persona name, see GET /v1/personas"
    )
    user_message: StorableText = Field(min_length=1, max_length=MAX_IMPORT_FIELD_CHARS)
    ai_response: StorableText = Field(max_length=MAX_IMPORT_FIELD_CHARS)
    created_at: datetime | None = Field(None, description="ISO 8601; naive times are UTC")


class ImportRequest(BaseModel):
    # more than MAX_IMPORT_TURNS is a 413 (turn_import.py) saying to send batches, not a 422
    turns: list[ImportTurn] = Field(
        min_length=1,
        description=f"at most {MAX_IMPORT_TURNS} per request",
        json_schema_extra={"maxItems": MAX_IMPORT_TURNS},
    )
    conversation_id: UUID | None = Field(
        None,
        description="add the turns to this conversation of yours (they must be with its"
        " persona); without it, the new turns start one conversation per persona",
    )


class JournalEntry(BaseModel):
    """The Artisan Cut of one turn."""

    turn_id: UUID
    persona: str
    boss_essence: str
    persona_essence: str
    decision_arc_summary: str = Field(description="the search key, embedded")
    salience_score: int = Field(ge=1, le=10)
    is_instruction: bool
    instruction_scope: str | None = Field(description="'global' or a persona's name")
    instruction: str | None = Field(
        None, description="the instruction alone, in your words (boss_essence: all you said)"
    )
    applies_to: str | None = Field(
        None, description="who keeps the instruction: 'every advisor' or one advisor's name"
    )
    embedded: bool
    created_at: datetime = Field(description="the turn's time")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "JournalEntry":
        computed = ("persona", "applies_to")
        fields = {name: row[name] for name in cls.model_fields if name not in computed}
        scope = row["instruction_scope"] if row["is_instruction"] else None
        return cls(
            **fields,
            persona=row["persona_name"],
            applies_to=audience(scope) if scope else None,
        )


class JournalPage(BaseModel):
    items: list[JournalEntry]
    next: str | None = Field(description="pass as `before` for the next (older) page")


class InstructionList(BaseModel):
    items: list[JournalEntry]
