"""Answerable vs unanswerable on SQuAD 2.0's "Normans" article (../shared/data/squad2-normans).

The article's paragraphs are uploaded as one file; every question is asked through POST /v1/chat
as a user would. Answerable questions should be answered with the answer in the text and a
citation whose passage (the cited character range of the file) holds it; unanswerable ones
(a plausible span exists, but the text does not answer them) should be refused. Figures per
half, split by a hash of the question id: `tune` and `check`.

Run:  .venv/bin/python -m tests.benchmarks.squad2 [--limit N] [--model FILE.gguf]
"""

import argparse
import hashlib
import json
import re
import string
import tempfile
from pathlib import Path
from typing import Any

import httpx

from shared.launcher.stack import Stack
from shared.text.citations import without_ref_markers
from tests.benchmarks import reading_model
from tests.benchmarks.chat_latency import timed_chat
from tests.benchmarks.datasets import EVAL_DATA
from tests.helpers import client_for_new_user, own_stack, upload, wait_for_status

DATA = EVAL_DATA / "squad2-normans" / "dev-v2.0-normans.json"
PERSONA = "gunnar"


def normalise(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def holds(text: str, answers: list[str]) -> bool:
    said = f" {normalise(text)} "
    return any(f" {normalise(a)} " in said for a in answers if normalise(a))


def half_of(question_id: str) -> str:
    return "tune" if hashlib.sha256(question_id.encode()).digest()[0] % 2 == 0 else "check"


def load() -> tuple[str, list[dict[str, Any]]]:
    article = json.loads(DATA.read_text())["data"][0]
    paragraphs = [p["context"] for p in article["paragraphs"]]
    questions = [
        {
            "id": qa["id"],
            "question": qa["question"],
            "impossible": qa.get("is_impossible", False),
            "answers": [a["text"] for a in qa["answers"]],
        }
        for p in article["paragraphs"]
        for qa in p["qas"]
    ]
    return "\n\n".join(paragraphs) + "\n", questions


async def ask(client: httpx.AsyncClient, text: str, question: dict[str, Any]) -> dict[str, Any]:
    done = (await timed_chat(client, PERSONA, question["question"])).done
    cited = [text[c["char_start"] : c["char_end"]] for c in done["citations"] if c.get("file_id")]
    top5 = (await client.get("/v1/search", params={"q": question["question"], "limit": 5})).json()
    return {
        "half": half_of(question["id"]),
        "impossible": question["impossible"],
        "refused": done["refused"],
        "holds": holds(without_ref_markers(done["answer"]), question["answers"]),
        "cited": any(holds(passage, question["answers"]) for passage in cited),
        "top5": any(
            holds(text[hit["char_start"] : hit["char_end"]], question["answers"])
            for hit in top5["items"]
        ),
    }


def rate(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(r[key] for r in rows) / len(rows), 3) if rows else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if not r["impossible"]]
    impossible = [r for r in rows if r["impossible"]]
    refused = [r for r in rows if r["refused"]]
    return {
        "answerable": len(answerable),
        "unanswerable": len(impossible),
        "answered_of_answerable": round(1 - (rate(answerable, "refused") or 0), 3),
        "answer_holds_gold": rate(answerable, "holds"),
        "citation_covers_answer": rate(answerable, "cited"),
        "search_top5_holds_answer": rate(answerable, "top5"),
        "unanswerable_refused": rate(impossible, "refused"),
        "refusal_precision": rate(refused, "impossible"),
    }


async def evaluate(stack: Stack, limit: int | None) -> dict[str, Any]:
    text, questions = load()
    async with await client_for_new_user(stack, "squad2") as client:
        record = await upload(client, "normans.txt", text.encode())
        await wait_for_status(client, record["id"], "ready", timeout=300)
        rows = []
        for half in ("tune", "check"):
            chosen = [q for q in questions if half_of(q["id"]) == half][:limit]
            rows += [await ask(client, text, q) for q in chosen]
    return {
        "tune": summary([r for r in rows if r["half"] == "tune"]),
        "check": summary([r for r in rows if r["half"] == "check"]),
        "overall": summary(rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="questions per half")
    reading_model.add_model_argument(parser)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), model_file=args.model) as stack,
    ):
        reading_model.run(stack, evaluate(stack, args.limit), args.model)


if __name__ == "__main__":
    main()
