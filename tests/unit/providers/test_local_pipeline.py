"""The whole local path for a 65,000-character transcript stays well under a second."""

import time

from shared.extraction import extract_text
from shared.providers.base import ChunkType
from shared.providers.local import LocalChunker, LocalClassifier, LocalCompressor, LocalEmbedder
from shared.providers.local.spans import validate_spans
from tests.fixtures.transcripts import interview_transcript


async def test_transcript_extract_classify_chunk_compress_embed_under_a_second() -> None:
    data = interview_transcript().encode()
    classifier, chunker = LocalClassifier(), LocalChunker()
    compressor, embedder = LocalCompressor(), LocalEmbedder()

    started = time.perf_counter()
    text = extract_text(data, "ACD179.md")
    file_type = await classifier.classify_file(text)
    spans = await chunker.chunk(text)
    pieces = [text[span.start : span.end] for span in spans]
    chunk_types = [await classifier.classify_chunk(piece) for piece in pieces]
    cuts = [
        await compressor.compress(piece, span.title)
        for piece, span in zip(pieces, spans, strict=True)
    ]
    vectors = await embedder.embed([cut.decision_arc_summary for cut in cuts] + pieces)
    elapsed = time.perf_counter() - started

    validate_spans(text, spans)
    assert file_type == "strategic"
    assert chunk_types.count(ChunkType.STRATEGIC) >= len(spans) - 2
    assert len(vectors) == 2 * len(spans) == 48
    assert elapsed < 1.0, f"{elapsed:.3f} s"
