"""The offline embedders' cost in one process: words per second on SciFact abstracts, the time to
load all-MiniLM-L6-v2, and a short question's latency (what the context service pays per
question).

Run:  .venv/bin/python -m tests.benchmarks.embedders [--docs 500]
"""

import argparse
import asyncio
import statistics
import time

from shared.providers.local import LocalEmbedder, MiniLMEmbedder
from shared.text.words import words
from tests.benchmarks.scifact import load


def throughput(embedder: object, texts: list[str], batch: int) -> float:
    """Words per second, embedding `batch` texts per call as the embedder service would."""
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        asyncio.run(embedder.embed(texts[start : start + batch]))  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - started
    return sum(len(words(text)) for text in texts) / elapsed


def question_latency_ms(embedder: object, questions: list[str]) -> float:
    timings = []
    for question in questions:
        started = time.perf_counter()
        asyncio.run(embedder.embed([question], input_type="query"))  # type: ignore[attr-defined]
        timings.append(1000 * (time.perf_counter() - started))
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500)
    args = parser.parse_args()
    corpus, queries, _ = load()
    texts = list(corpus.values())[: args.docs]
    questions = list(queries.values())[:100]
    started = time.perf_counter()
    minilm = MiniLMEmbedder()
    load_s = time.perf_counter() - started
    for name, embedder in (("hashed", LocalEmbedder()), ("minilm", minilm)):
        one = throughput(embedder, texts, batch=1)
        batched = throughput(embedder, texts, batch=32)
        latency = question_latency_ms(embedder, questions)
        print(
            f"{name}: {one:,.0f} words/s one text a call, {batched:,.0f} words/s 32 a call;"
            f" a question {latency:.1f} ms (p50)"
        )
    print(f"minilm weights loaded in {load_s:.2f} s")


if __name__ == "__main__":
    main()
