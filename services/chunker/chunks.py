"""Turns a text into stored-chunk plans: spans, per-chunk type, line ranges."""

import asyncio
from collections.abc import Mapping

from shared.db.chunks import NewChunk
from shared.domain import ChunkType, FileType
from shared.providers.base import Chunker, Classifier
from shared.text.spans import line_ranges, validate_spans


async def plan_chunks(
    text: str,
    file_type: FileType,
    chunker: Chunker,
    classifier: Classifier,
    known_types: Mapping[str, str] | None = None,
) -> list[NewChunk]:
    """Chunks in document order covering the text exactly once; mixed files type each chunk
    (but a passage whose type is known, unchanged from the file's previous version)."""
    spans = await chunker.chunk(text)
    validate_spans(text, spans)
    pieces = [text[span.start : span.end] for span in spans]
    if file_type == FileType.MIXED:
        known = known_types or {}
        chunk_types = await asyncio.gather(*(_chunk_type(p, known, classifier) for p in pieces))
    else:
        chunk_types = [ChunkType(file_type.value)] * len(spans)
    planned = []
    lines = line_ranges(text, spans)
    for index, (span, piece, chunk_type, (line_start, line_end)) in enumerate(
        zip(spans, pieces, chunk_types, lines, strict=True)
    ):
        planned.append(
            NewChunk(
                index=index,
                chunk_type=chunk_type.value,
                title=span.title,
                char_start=span.start,
                char_end=span.end,
                line_start=line_start,
                line_end=line_end,
                text=piece,
                summary=span.summary,
            )
        )
    return planned


async def _chunk_type(piece: str, known: Mapping[str, str], classifier: Classifier) -> ChunkType:
    if piece in known:
        return ChunkType(known[piece])
    return await classifier.classify_chunk(piece)
