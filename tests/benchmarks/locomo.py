"""Long-term conversational memory on LoCoMo (../shared/data/locomo-dev), as a user would meet it.

Each conversation is imported as its own user through POST /v1/turns/import (one turn per pair of
utterances, at its session's date, a minute apart), journaled by the real pipeline; then, for
every question of categories 1-4, GET /v1/context/preview says whether an evidence turn is in the
context the answer would be built from (overall, and for evidence older than the conversation's
last 100 turns, where P4 ends and only recall helps), and every category-5 (adversarial) question
is asked through POST /v1/chat and should be refused. With --answers, every question of
categories 1-4 is asked too and its answer scored by token F1 against the gold answer (the LoCoMo
paper's measure, as SQuAD computes it: lower case, no punctuation or articles; no stemming).
Figures per half: `tune` (conv-26, conv-30, conv-41) and `check` (conv-42, conv-43), so a change
tuned on one half is checked on the other. --model FILE.gguf has a model write the answers.

Run:  .venv/bin/python -m tests.benchmarks.locomo [--limit N] [--no-chat] [--answers]
      [--model FILE.gguf]
"""

import argparse
import json
import statistics
import tempfile
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from shared.launcher.stack import Stack
from shared.text.citations import without_ref_markers
from tests.benchmarks import reading_model
from tests.benchmarks.chat_latency import timed_chat
from tests.benchmarks.datasets import EVAL_DATA
from tests.benchmarks.squad2 import normalise
from tests.helpers import client_for_new_user, import_turns, own_stack, wait_journaled

DATA = EVAL_DATA / "locomo-dev" / "locomo-dev.json"
TUNE = {"conv-26", "conv-30", "conv-41"}
PERSONA = "gunnar"
P4_TURNS = 100


def session_time(stamp: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → that moment (UTC)."""
    return datetime.strptime(stamp.replace(",", ""), "%I:%M %p on %d %B %Y").replace(tzinfo=UTC)


def said(utterance: dict[str, Any]) -> str:
    text = f"{utterance['speaker']}: {utterance['text']}"
    if caption := utterance.get("blip_caption"):
        text += f" [shares a photo: {caption}]"
    return text


def conversation_turns(conversation: dict[str, Any]) -> tuple[list[dict], list[list[str]]]:
    """The turns to import (utterances paired in order) and the dia_ids each turn holds."""
    turns, dia_ids = [], []
    numbers = sorted(
        int(key.removeprefix("session_"))
        for key in conversation
        if key.startswith("session_") and key.count("_") == 1
    )
    for number in numbers:
        utterances = conversation[f"session_{number}"]
        started = session_time(conversation[f"session_{number}_date_time"])
        for index in range(0, len(utterances), 2):
            pair = utterances[index : index + 2]
            turns.append(
                {
                    "persona": PERSONA,
                    "user_message": said(pair[0]),
                    "ai_response": said(pair[1]) if len(pair) > 1 else "…",
                    "created_at": (started + timedelta(minutes=index)).isoformat(),
                }
            )
            dia_ids.append([u["dia_id"] for u in pair])
    return turns, dia_ids


async def context_ids(client: httpx.AsyncClient, question: str) -> tuple[set[str], dict]:
    response = await client.get("/v1/context/preview", params={"persona": PERSONA, "q": question})
    response.raise_for_status()
    bundle = response.json()
    return {item["id"] for s in bundle["sections"] for item in s["items"]}, bundle


def token_f1(answer: str, gold: str) -> float:
    """Token F1 of an answer against the gold one, after SQuAD's normalisation."""
    said, wanted = normalise(answer).split(), normalise(gold).split()
    common = sum((Counter(said) & Counter(wanted)).values())
    if not common:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


async def evaluate_conversation(
    stack: Stack, sample: dict[str, Any], limit: int | None, chat: bool, answers: bool = False
) -> list[dict[str, Any]]:
    """One result row per question of the conversation."""
    turns, dia_ids = conversation_turns(sample["conversation"])
    async with await client_for_new_user(stack, sample["sample_id"]) as client:
        records = await import_turns(client, turns)
        await wait_journaled(client, [r["id"] for r in records], timeout=900)
        turn_of = {d: (i, records[i]["id"]) for i, ids in enumerate(dia_ids) for d in ids}
        questions = sample["qa"][:limit] if limit else sample["qa"]
        rows = []
        for qa in questions:
            row = {"conversation": sample["sample_id"], "category": qa["category"]}
            evidence = [turn_of[d] for d in qa.get("evidence", []) if d in turn_of]
            if qa["category"] == 5:
                if chat:
                    answer = await timed_chat(client, PERSONA, qa["question"])
                    row["refused"] = answer.done["refused"]
                rows.append(row)
                continue
            loaded, bundle = await context_ids(client, qa["question"])
            row["found"] = any(turn_id in loaded for _, turn_id in evidence)
            row["old"] = bool(evidence) and max(i for i, _ in evidence) < len(turns) - P4_TURNS
            row["tokens"] = bundle["total_tokens"]
            row["sections"] = {s["name"]: s["tokens"] for s in bundle["sections"]}
            if answers:
                answer = await timed_chat(client, PERSONA, qa["question"])
                row["f1"] = token_f1(without_ref_markers(answer.done["answer"]), str(qa["answer"]))
                row["answer_seconds"] = answer.total_s
            rows.append(row)
        return rows


def share(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [row[key] for row in rows if key in row]
    return round(sum(values) / len(values), 3) if values else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if r["category"] != 5]
    old = [r for r in answerable if r["old"]]
    by_category = defaultdict(list)
    for row in answerable:
        by_category[row["category"]].append(row)
    sections: dict[str, float] = defaultdict(float)
    for row in answerable:
        for name, tokens in row["sections"].items():
            sections[name] += tokens / max(1, row["tokens"]) / len(answerable)
    return {
        "questions": len(answerable),
        "evidence_in_context": share(answerable, "found"),
        "old_questions": len(old),
        "old_evidence_in_context": share(old, "found"),
        "by_category": {c: share(rs, "found") for c, rs in sorted(by_category.items())},
        "median_context_tokens": statistics.median(r["tokens"] for r in answerable),
        "token_share_by_section": {k: round(v, 3) for k, v in sections.items()},
        "adversarial_refused": share([r for r in rows if r["category"] == 5], "refused"),
        "answer_f1": share(answerable, "f1"),
        "answer_f1_by_category": {c: share(rs, "f1") for c, rs in sorted(by_category.items())},
        "median_answer_seconds": statistics.median(r["answer_seconds"] for r in answerable)
        if any("answer_seconds" in r for r in answerable)
        else None,
    }


async def evaluate(
    stack: Stack, limit: int | None, chat: bool, answers: bool = False
) -> dict[str, Any]:
    samples = json.loads(DATA.read_text())
    rows: list[dict[str, Any]] = []
    for sample in samples:
        rows += await evaluate_conversation(stack, sample, limit, chat, answers)
    halves = {
        "tune": [r for r in rows if r["conversation"] in TUNE],
        "check": [r for r in rows if r["conversation"] not in TUNE],
        "overall": rows,
    }
    return {name: summary(half) for name, half in halves.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="questions per conversation")
    parser.add_argument("--no-chat", action="store_true", help="skip the category-5 answers")
    parser.add_argument("--answers", action="store_true", help="answer F1, categories 1-4")
    reading_model.add_model_argument(parser)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), model_file=args.model) as stack,
    ):
        evaluation = evaluate(stack, args.limit, not args.no_chat, args.answers)
        reading_model.run(stack, evaluation, args.model)


if __name__ == "__main__":
    main()
