"""First-token latency and whole-answer time of streamed answers (local provider) over HTTP.

A system of its own ingests a small mixed corpus, then questions are asked through POST /v1/chat
one after another, as a user would; each is timed from the request to its first `token` event
and to its `done` event.

Run:  .venv/bin/python -m tests.benchmarks.chat_latency [--files N] [--questions N]
"""

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import EventSource

from shared.launcher.stack import Stack
from tests.benchmarks.corpus import TOPICS, VERBS, generate_corpus
from tests.benchmarks.scifact import upload_corpus
from tests.helpers import client_for_new_user, own_stack


@dataclass
class TimedAnswer:
    first_token_s: float | None = None
    total_s: float = 0.0
    tokens: int = 0
    done: dict[str, Any] = field(default_factory=dict)


async def timed_chat(client: httpx.AsyncClient, persona: str, message: str) -> TimedAnswer:
    """One streamed answer, timed; raises on an `error` event."""
    timed, started = TimedAnswer(), time.monotonic()
    async with client.stream(
        "POST", "/v1/chat", json={"persona": persona, "message": message}, timeout=300
    ) as response:
        response.raise_for_status()
        async for event in EventSource(response).aiter_sse():
            if event.event == "token":
                timed.tokens += 1
                if timed.first_token_s is None:
                    timed.first_token_s = time.monotonic() - started
            elif event.event == "error":
                raise RuntimeError(f"the answer failed: {event.data}")
            elif event.event == "done":
                timed.done = json.loads(event.data)
                break
    timed.total_s = time.monotonic() - started
    return timed


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def questions(count: int) -> list[str]:
    forms = [
        "Why did we decide to {verb} the {topic} plan?",
        "What does the team recommend about {topic} work?",
        "What slippage did the last quarter show for {topic}?",
    ]
    return [
        forms[i % len(forms)].format(verb=VERBS[i % len(VERBS)], topic=TOPICS[i % len(TOPICS)])
        for i in range(count)
    ]


async def measure(gateway_client: httpx.AsyncClient, files: int, count: int) -> dict[str, Any]:
    corpus = {name: data.decode() for name, data in generate_corpus(files)}
    began = time.monotonic()
    await upload_corpus(gateway_client, {Path(n).stem: t for n, t in corpus.items()})
    ingest_s = time.monotonic() - began
    await timed_chat(gateway_client, "gunnar", "warm up: what is the pricing plan?")
    answers = [await timed_chat(gateway_client, "gunnar", q) for q in questions(count)]
    firsts = [a.first_token_s for a in answers if a.first_token_s is not None]
    totals = [a.total_s for a in answers]
    return {
        "files": files,
        "questions": count,
        "ingest_s": round(ingest_s, 1),
        "answered": sum(not a.done.get("refused") for a in answers),
        "first_token_p50_ms": round(1000 * percentile(firsts, 0.5), 1),
        "first_token_p95_ms": round(1000 * percentile(firsts, 0.95), 1),
        "answer_p50_ms": round(1000 * percentile(totals, 0.5), 1),
        "answer_p95_ms": round(1000 * percentile(totals, 0.95), 1),
        "tokens_per_answer": round(sum(a.tokens for a in answers) / len(answers), 1),
    }


async def run(stack: Stack, files: int, count: int) -> dict[str, Any]:
    async with await client_for_new_user(stack, "chat-latency") as client:
        return await measure(client, files, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, own_stack(Path(data_dir)) as stack:
        print(asyncio.run(run(stack, args.files, args.questions)))


if __name__ == "__main__":
    main()
