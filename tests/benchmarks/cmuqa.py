"""Grounded questions over real articles (../shared/data/cmuqa-s08), among unrelated documents.

The 40 Wikipedia articles are uploaded, with the first N SciFact abstracts as distractors in the
same account; every distinct question is asked through POST /v1/chat. Measures: the top citation
comes from the question's article; a cited passage holds the answer (not for yes/no answers); the
answer text holds it; refusals; and citations of the conversation instead of a file (a past
question must never be the evidence). Halves: `tune` (sets 1-2) and `check` (sets 3-4).

Articles that are Latin-1 are sent as UTF-8: the product refused them as "not UTF-8" until
issue 12; this measures answers, not decoding.

Run:  .venv/bin/python -m tests.benchmarks.cmuqa [--limit N] [--model FILE.gguf] [--distractors N]
      [--model FILE.gguf]
"""

import argparse
import csv
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx

from shared.launcher.stack import Stack
from shared.text.citations import without_ref_markers
from tests.benchmarks import reading_model
from tests.benchmarks.chat_latency import timed_chat
from tests.benchmarks.datasets import EVAL_DATA
from tests.benchmarks.scifact import upload_corpus
from tests.benchmarks.squad2 import holds
from tests.helpers import client_for_new_user, own_stack

DATA = EVAL_DATA / "cmuqa-s08"
PERSONA = "gunnar"
YES_NO = {"yes", "no", "yes.", "no."}


def article_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def load_questions() -> list[dict[str, Any]]:
    """Distinct (article, question) pairs with every answer given for them."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    with (DATA / "question_answer_pairs.txt").open(encoding="latin-1") as lines:
        for row in csv.DictReader(lines, delimiter="\t"):
            answer, article = (row["Answer"] or "").strip(), (row["ArticleFile"] or "").strip()
            if not answer or answer == "NULL" or not article or not row["Question"]:
                continue
            key = (article, row["Question"].strip())
            entry = found.setdefault(key, {"article": article, "question": key[1], "answers": []})
            entry["answers"].append(answer)
    return list(found.values())


def half_of(article: str) -> str:
    return "tune" if article.split("/")[1] in ("set1", "set2") else "check"


async def ask(client: httpx.AsyncClient, texts: dict[str, str], qa: dict[str, Any]) -> dict:
    done = (await timed_chat(client, PERSONA, qa["question"])).done
    files = [c for c in done["citations"] if c.get("file_id")]
    expected = f"{qa['article'].replace('/', '_')}.txt"
    row = {
        "half": half_of(qa["article"]),
        "refused": done["refused"],
        "top_right": bool(files) and files[0]["filename"] == expected,
        "journal_cited": any(c.get("turn_id") for c in done["citations"]),
        "holds": holds(without_ref_markers(done["answer"]), qa["answers"]),
    }
    if not YES_NO & {a.lower() for a in qa["answers"]}:
        passages = [texts[c["filename"]][c["char_start"] : c["char_end"]] for c in files]
        row["cited"] = any(holds(p, qa["answers"]) for p in passages)
    return row


def rate(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if key in r]
    return round(sum(values) / len(values), 3) if values else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "top_citation_right_article": rate(rows, "top_right"),
        "citation_covers_answer": rate(rows, "cited"),
        "answer_holds_answer": rate(rows, "holds"),
        "refused": rate(rows, "refused"),
        "journal_cited": sum(r["journal_cited"] for r in rows),
    }


async def evaluate(stack: Stack, limit: int | None, distractors: int) -> dict[str, Any]:
    articles = sorted((DATA / "articles" / "data").glob("set*/a*.txt.clean"))
    texts = {f"data_{p.parent.name}_{p.name.split('.')[0]}.txt": article_text(p) for p in articles}
    with gzip.open(EVAL_DATA / "scifact" / "corpus.jsonl.gz", "rt") as lines:
        abstracts = [json.loads(line) for _, line in zip(range(distractors), lines, strict=False)]
    texts |= {f"scifact-{d['_id']}.txt": f"{d['title']}\n\n{d['text']}\n" for d in abstracts}
    corpus = {name.removesuffix(".txt"): text for name, text in texts.items()}
    async with await client_for_new_user(stack, "cmuqa") as client:
        await upload_corpus(client, corpus)
        rows = []
        for half in ("tune", "check"):
            chosen = [q for q in load_questions() if half_of(q["article"]) == half][:limit]
            rows += [await ask(client, texts, qa) for qa in chosen]
    return {
        "tune": summary([r for r in rows if r["half"] == "tune"]),
        "check": summary([r for r in rows if r["half"] == "check"]),
        "overall": summary(rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="questions per half")
    parser.add_argument("--distractors", type=int, default=2000, help="SciFact abstracts")
    reading_model.add_model_argument(parser)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), model_file=args.model) as stack,
    ):
        reading_model.run(stack, evaluate(stack, args.limit, args.distractors), args.model)


if __name__ == "__main__":
    main()
