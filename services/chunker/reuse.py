"""Which chunks of a file's new version are unchanged from the live one, and keep its rows."""

from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from shared.db.chunks import NewChunk


def _key(chunk: Mapping[str, Any] | NewChunk) -> tuple[str, str, str]:
    # the cut and the vector were made from the text and title, for this chunk type
    if isinstance(chunk, NewChunk):
        return chunk.text, chunk.chunk_type, chunk.title
    return chunk["text"], chunk["chunk_type"], chunk["title"]


def match_unchanged(
    planned: Sequence[NewChunk], live: Sequence[Mapping[str, Any]]
) -> dict[int, UUID]:
    """Planned chunk index → the id of a live chunk with the same text, title and type.

    Each live chunk is reused at most once, in document order, so a passage that appears twice
    matches twice only if it was there twice. Linear in the number of chunks.
    """
    available: dict[tuple[str, str, str], deque[UUID]] = defaultdict(deque)
    for row in live:
        available[_key(row)].append(row["id"])
    reused = {}
    for chunk in planned:
        ids = available.get(_key(chunk))
        if ids:
            reused[chunk.index] = ids.popleft()
    return reused


def known_types(live: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Text → chunk type of the live chunks: a mixed file's unchanged passages are not
    classified again."""
    return {row["text"]: row["chunk_type"] for row in live}
