"""Local-provider benchmark: the 65,000-character transcript through every model role, in-process.

Run:  .venv/bin/python -m tests.benchmarks.providers [--runs 20]
"""

import argparse
import asyncio
import statistics
import time

from services.extractor.extract import extract_text
from shared.providers.local import LocalChunker, LocalClassifier, LocalCompressor, LocalEmbedder
from shared.providers.local.embed import embed_texts
from tests.fixtures.transcripts import interview_transcript


async def transcript_path() -> dict[str, float]:
    data = interview_transcript().encode()
    classifier, chunker = LocalClassifier(), LocalChunker()
    compressor, embedder = LocalCompressor(), LocalEmbedder()
    timings: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        timings[name] = now - mark
        mark = now

    text = extract_text(data, "ACD179.md")
    lap("extract")
    await classifier.classify_file(text)
    lap("classify_file")
    spans = await chunker.chunk(text)
    lap("chunk")
    pieces = [text[s.start : s.end] for s in spans]
    for piece in pieces:
        await classifier.classify_chunk(piece)
    lap("classify_chunks")
    cuts = [await compressor.compress(p, s.title) for p, s in zip(pieces, spans, strict=True)]
    lap("compress")
    await embedder.embed([c.decision_arc_summary for c in cuts] + pieces)
    lap("embed")
    timings["total"] = sum(timings.values())
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    runs = [asyncio.run(transcript_path()) for _ in range(args.runs)]
    for name in runs[0]:
        values = [run[name] * 1000 for run in runs]
        print(f"{name:<16} median {statistics.median(values):7.1f} ms   max {max(values):7.1f} ms")
    words = interview_transcript().split()
    texts = [" ".join(words[i * 40 + 3 : i * 40 + 303]) for i in range(200)]
    started = time.perf_counter()
    embed_texts(texts)
    print(f"embed 200 chunks of 300 words: {1000 * (time.perf_counter() - started):.1f} ms")


if __name__ == "__main__":
    main()
