"""The JSON of /v1/conversations: a conversation, a page of them, and what a request may change."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel, Field

from services.gateway.errors import StorableText
from shared.db.conversations import UNTITLED

MAX_TITLE_CHARS = 200
MAX_PERSONA_CHARS = 100


class ConversationRecord(BaseModel):
    """A conversation: its persona, its title and how many turns it holds."""

    id: UUID
    persona: str = Field(description="who answers in it, a name from GET /v1/personas")
    title: str = Field(
        description="as named; until then its first question, shortened; 'New conversation'"
        " while it has none"
    )
    turn_count: int = Field(ge=0, description="its turns (GET /v1/turns?conversation_id=)")
    created_at: datetime
    updated_at: datetime = Field(description="when its latest turn was added (or it was made)")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "ConversationRecord":
        return cls(
            id=row["id"],
            persona=row["persona_name"],
            title=row["title"] or UNTITLED,
            turn_count=row["turn_count"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


class ConversationPage(BaseModel):
    items: list[ConversationRecord] = Field(description="latest activity first")
    next: str | None = Field(description="pass as `before` for the next (older) page")


class NewConversation(BaseModel):
    persona: str = Field(
        min_length=1, max_length=MAX_PERSONA_CHARS, description="a name from GET /v1/personas"
    )
    title: StorableText | None = Field(
        None,
        min_length=1,
        max_length=MAX_TITLE_CHARS,
        description="leave it out to have the first question name it",
    )


class ConversationChange(BaseModel):
    """What PATCH changes: the title, the persona, or both (at least one)."""

    title: StorableText | None = Field(
        None, min_length=1, max_length=MAX_TITLE_CHARS, description="the new name"
    )
    persona: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_PERSONA_CHARS,
        description="who answers from now on (earlier turns keep theirs)",
    )
