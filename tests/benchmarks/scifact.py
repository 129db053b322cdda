"""Retrieval quality on SciFact (../shared/data/scifact), as a user would see it: the abstracts
are uploaded as files through the gateway, processed by the pipeline, and the 300 claims are
asked through GET /v1/search; nDCG@10 and recall@10 are scored against the qrels.

Run:  .venv/bin/python -m tests.benchmarks.scifact [--docs N]   (all 5,183 by default)
Embedder: whatever the environment selects (local by default; ARTISAN_VOYAGE_API_KEY etc.).
"""

import argparse
import asyncio
import gzip
import json
import math
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

from shared.config import REPO_ROOT
from shared.launcher.stack import Stack
from tests.helpers import client_for_new_user, own_stack

DATA = REPO_ROOT.parent / "shared" / "data" / "scifact"


def load() -> tuple[dict[str, str], dict[str, str], dict[str, set[str]]]:
    with gzip.open(DATA / "corpus.jsonl.gz", "rt") as lines:
        corpus = {d["_id"]: f"{d['title']}\n\n{d['text']}\n" for d in map(json.loads, lines)}
    queries = {q["_id"]: q["text"] for q in map(json.loads, (DATA / "queries.jsonl").open())}
    qrels: dict[str, set[str]] = defaultdict(set)
    for line in (DATA / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        query_id, doc_id, score = line.split("\t")
        if int(score) > 0:
            qrels[query_id].add(doc_id)
    return corpus, {q: queries[q] for q in qrels}, qrels


def ndcg_at_10(ranked: list[str], relevant: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, doc in enumerate(ranked[:10]) if doc in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return dcg / ideal


async def upload_corpus(client: httpx.AsyncClient, corpus: dict[str, str]) -> None:
    limit = asyncio.Semaphore(8)

    async def send(doc_id: str, text: str) -> None:
        async with limit:
            response = await client.post(
                "/v1/files", files=[("files", (f"{doc_id}.txt", text.encode()))]
            )
            response.raise_for_status()

    await asyncio.gather(*(send(d, t) for d, t in corpus.items()))
    await none_processing(client)


async def none_processing(client: httpx.AsyncClient) -> None:
    """Poll (once a second: per-file polling would meet the rate limit) until none of the user's
    files is processing: one row of the status-filtered list."""
    while True:
        wanted = {"status": "processing", "limit": 1}
        page = await client.get("/v1/files", params=wanted, timeout=60)
        if not page.json()["items"]:
            return
        await asyncio.sleep(1)


async def evaluate(stack: Stack, docs: int | None) -> dict:
    corpus, queries, qrels = load()
    if docs:
        wanted = {d for q in qrels.values() for d in q} | set(list(corpus)[:docs])
        corpus = {d: t for d, t in corpus.items() if d in wanted}
    async with await client_for_new_user(stack, "scifact") as client:
        started = time.monotonic()
        await upload_corpus(client, corpus)
        ingest_s = time.monotonic() - started
        scores, recalls, latencies = [], [], []
        for query_id, text in queries.items():
            began = time.monotonic()
            hits = (await client.get("/v1/search", params={"q": text, "limit": 30})).json()
            latencies.append(time.monotonic() - began)
            ranked = list(dict.fromkeys(h["filename"].removesuffix(".txt") for h in hits["items"]))
            scores.append(ndcg_at_10(ranked, qrels[query_id]))
            recalls.append(len(set(ranked[:10]) & qrels[query_id]) / len(qrels[query_id]))
    latencies.sort()
    return {
        "docs": len(corpus),
        "queries": len(queries),
        "ndcg@10": sum(scores) / len(scores),
        "recall@10": sum(recalls) / len(recalls),
        "ingest_s": ingest_s,
        "search_p50_ms": 1000 * latencies[len(latencies) // 2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=None, help="a sample (plus relevant docs)")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), compressors=2) as stack,
    ):
        print(asyncio.run(evaluate(stack, args.docs)))


if __name__ == "__main__":
    main()
