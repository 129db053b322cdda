"""Answer quality on SciFact (../shared/data/scifact) treated as uploaded files: for each claim with
relevance judgements, ask the chat and check whether the answer's top (first) citation comes
from a relevant abstract.

Run:  .venv/bin/python -m tests.benchmarks.scifact_answers [--docs N] [--claims N]
(all 5,183 abstracts by default; ingest takes a few minutes with the local providers)
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from shared.launcher.stack import Stack
from tests.benchmarks.chat_latency import percentile, timed_chat
from tests.benchmarks.scifact import load, upload_corpus
from tests.helpers import client_for_new_user, own_stack

PERSONA = "stefan"


async def evaluate(client: httpx.AsyncClient, docs: int | None, claims: int | None) -> dict:
    corpus, queries, qrels = load()
    if docs:
        wanted = {d for q in qrels.values() for d in q} | set(list(corpus)[:docs])
        corpus = {d: t for d, t in corpus.items() if d in wanted}
    started = time.monotonic()
    await upload_corpus(client, corpus)
    ingest_s = time.monotonic() - started
    asked = list(queries.items())[:claims] if claims else list(queries.items())
    top_relevant = any_relevant = refused = 0
    latencies: list[float] = []
    for query_id, claim in asked:
        timed = await timed_chat(client, PERSONA, claim)
        latencies.append(timed.total_s)
        cited = [c["filename"].removesuffix(".txt") for c in timed.done["citations"]]
        if timed.done["refused"] or not cited:
            refused += 1
            continue
        top_relevant += cited[0] in qrels[query_id]
        any_relevant += bool(set(cited) & qrels[query_id])
    answered = len(asked) - refused
    return {
        "docs": len(corpus),
        "claims": len(asked),
        "answered": answered,
        "refused": refused,
        "top_citation_relevant": top_relevant,
        "top_citation_rate": round(top_relevant / len(asked), 3),
        "top_citation_rate_when_answered": round(top_relevant / max(answered, 1), 3),
        "any_citation_relevant_rate": round(any_relevant / len(asked), 3),
        "answer_p50_ms": round(1000 * percentile(latencies, 0.5), 1),
        "ingest_s": round(ingest_s, 1),
    }


async def run(stack: Stack, docs: int | None, claims: int | None) -> dict[str, Any]:
    async with await client_for_new_user(stack, "scifact-answers") as client:
        return await evaluate(client, docs, claims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=None, help="a sample (plus relevant docs)")
    parser.add_argument("--claims", type=int, default=None, help="ask only the first N claims")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), compressors=2) as stack,
    ):
        print(asyncio.run(run(stack, args.docs, args.claims)))


if __name__ == "__main__":
    main()
