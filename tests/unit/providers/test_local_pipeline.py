"""The whole local path for a 65,000-character transcript (timed in tests/benchmarks)."""

from services.extractor.extract import extract_text
from shared.domain import ChunkType
from shared.providers.local import LocalChunker, LocalClassifier, LocalCompressor, LocalEmbedder
from shared.text.spans import validate_spans
from tests.fixtures.transcripts import interview_transcript


async def test_transcript_goes_through_extract_classify_chunk_compress_embed() -> None:
    data = interview_transcript().encode()
    classifier, chunker = LocalClassifier(), LocalChunker()
    compressor, embedder = LocalCompressor(), LocalEmbedder()

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

    validate_spans(text, spans)
    assert file_type == "strategic"
    assert chunk_types.count(ChunkType.STRATEGIC) >= len(spans) - 2
    assert len(vectors) == 2 * len(spans) == 48
