"""The scale benchmark's files: markdown collections whose sections are SciFact abstracts, new
abstracts made of SciFact sentences, and decision memos, about one chunk a section.

Every section is 150-700 words or merged by the chunker with its neighbour, so a file's chunk
count is close to its section count (the benchmark reports the count the pipeline stored).
"""

import gzip
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tests.benchmarks.corpus import DECISIONS, TOPICS, VERBS
from tests.benchmarks.datasets import EVAL_DATA

SCIFACT = EVAL_DATA / "scifact"
SECTIONS_PER_FILE = 50
# of the sections the chunker keeps apart, measured on SciFact collections: the short ones merge
CHUNKS_PER_SECTION = 0.9
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@dataclass(frozen=True)
class Abstract:
    title: str
    text: str


def scifact_abstracts() -> list[Abstract]:
    with gzip.open(SCIFACT / "corpus.jsonl.gz", "rt") as lines:
        return [Abstract(d["title"], d["text"]) for d in map(json.loads, lines) if d["text"]]


def scifact_claims() -> list[str]:
    with (SCIFACT / "queries.jsonl").open() as lines:
        return [json.loads(line)["text"] for line in lines]


class Sections:
    """An endless, deterministic stream of (title, text) sections."""

    def __init__(self, abstracts: list[Abstract], seed: int) -> None:
        self.rng = random.Random(seed)
        self.abstracts = abstracts
        self.sentences = [s for a in abstracts for s in _SENTENCE_END.split(a.text) if s]
        self.title_words = [w for a in abstracts for w in a.title.split() if len(w) > 3]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        index = 0
        while True:
            # the real abstracts once each, then two made-up ones for every memo section
            if index < len(self.abstracts):
                yield self.abstracts[index].title, self.abstracts[index].text
            elif index % 3:
                yield self._made_up_abstract(index)
            else:
                yield self._memo_section(index)
            index += 1

    def _made_up_abstract(self, index: int) -> tuple[str, str]:
        words = self.rng.sample(self.title_words, self.rng.randint(4, 9))
        sentences: list[str] = []
        while sum(len(s.split()) for s in sentences) < self.rng.randint(160, 320):
            sentences.append(self.rng.choice(self.sentences))
        return f"{' '.join(words)} ({index})", " ".join(sentences)

    def _memo_section(self, index: int) -> tuple[str, str]:
        topic = self.rng.choice(TOPICS)
        body = " ".join(
            self.rng.choice(DECISIONS).format(
                verb=self.rng.choice(VERBS),
                topic=topic,
                n=self.rng.randint(3, 60),
                q=self.rng.randint(1, 4),
            )
            for _ in range(self.rng.randint(10, 18))
        )
        return f"{topic.title()} decision {index}", body


def collections(chunks: int, sections: Iterator[tuple[str, str]], prefix: str) -> list[bytes]:
    """Markdown files of SECTIONS_PER_FILE sections, enough for about `chunks` chunks."""
    files: list[bytes] = []
    wanted = round(chunks / CHUNKS_PER_SECTION)
    while wanted > 0:
        count = min(SECTIONS_PER_FILE, wanted)
        body = "\n".join(f"## {title}\n\n{text}\n" for title, text in _take(sections, count))
        files.append(f"# {prefix} collection {len(files) + 1}\n\n{body}".encode())
        wanted -= count
    return files


def _take(sections: Iterator[tuple[str, str]], count: int) -> list[tuple[str, str]]:
    return [next(sections) for _ in range(count)]


def questions(count: int, seed: int = 11) -> list[str]:
    """SciFact claims and questions about the memos' decisions, two to one."""
    rng = random.Random(seed)
    claims = rng.sample(scifact_claims(), k=count - count // 3)
    asked = [
        f"Why did we decide to {rng.choice(VERBS)} the {rng.choice(TOPICS)} plan?"
        for _ in range(count // 3)
    ]
    mixed = claims + asked
    rng.shuffle(mixed)
    return mixed
