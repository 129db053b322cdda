"""The pipeline's model roles, each a small interface; local and remote kinds implement them."""

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol


class FileType(StrEnum):
    STRATEGIC = "strategic"
    FACTUAL = "factual"
    MIXED = "mixed"


class ChunkType(StrEnum):
    STRATEGIC = "strategic"
    FACTUAL = "factual"


@dataclass(frozen=True)
class ChunkSpan:
    """A logical chunk proposed for a text: [start, end) character offsets and a title."""

    start: int
    end: int
    title: str


@dataclass(frozen=True)
class ArtisanCut:
    """Compressed understanding of a strategic chunk."""

    chunk_essence: str
    decision_arc_summary: str  # 50-150 characters: the search key
    salience_score: int  # 1-10


class Classifier(Protocol):
    async def classify_file(self, text: str) -> FileType: ...

    async def classify_chunk(self, text: str) -> ChunkType: ...


class Chunker(Protocol):
    async def chunk(self, text: str) -> list[ChunkSpan]:
        """Spans in order, contiguous, covering text exactly: 0 .. len(text)."""
        ...


class Compressor(Protocol):
    async def compress(self, text: str, title: str) -> ArtisanCut: ...


class Embedder(Protocol):
    dimension: int

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]: ...
