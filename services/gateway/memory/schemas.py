"""The JSON of /v1/memory: the facts learned about a user and their company."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

FactKind = Literal["user", "company"]


class MemoryFactRecord(BaseModel):
    id: UUID
    kind: FactKind
    fact: str
    confidence: float = Field(gt=0.8, le=1)
    turn_id: UUID = Field(description="the turn it was learned from")
    created_at: datetime

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "MemoryFactRecord":
        fields = {name: row[name] for name in cls.model_fields}
        return cls(**{**fields, "confidence": round(float(row["confidence"]), 4)})


class MemoryPage(BaseModel):
    items: list[MemoryFactRecord] = Field(description="newest first")
    next: str | None = Field(
        description="pass as `before` for the next (older) page; null on the last page"
    )


class MemoryExport(BaseModel):
    files: dict[str, str] = Field(description="USER_MEMORY.md and COMPANY_MEMORY.md, as Markdown")
