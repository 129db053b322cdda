"""A deterministic corpus of mixed documents: memos, reports, transcripts, logs, html."""

import random

from tests.fixtures.transcripts import interview_transcript

TOPICS = ["pricing", "hiring", "expansion", "churn", "onboarding", "security", "partnerships"]
DECISIONS = [
    "We decided to {verb} the {topic} plan because the last quarter showed {n}% slippage.",
    "The team recommends that we {verb} {topic} work before Q{q}; the risk is a slower launch.",
    "I think we should {verb} our {topic} strategy, since customers asked for it {n} times.",
]
VERBS = ["accelerate", "pause", "rework", "simplify", "expand", "narrow"]


def strategic_memo(rng: random.Random, index: int) -> str:
    sections = []
    for s in range(rng.randint(2, 6)):
        topic = rng.choice(TOPICS)
        body = " ".join(
            rng.choice(DECISIONS).format(
                verb=rng.choice(VERBS), topic=topic, n=rng.randint(3, 60), q=rng.randint(1, 4)
            )
            for _ in range(rng.randint(8, 25))
        )
        sections.append(f"## {topic.title()} decision {s + 1}\n\n{body}\n")
    return f"# Memo {index}\n\n" + "\n".join(sections)


def factual_report(rng: random.Random, index: int) -> str:
    rows = "\n".join(
        f"{rng.choice(TOPICS):<14}{rng.randint(100, 9999):>8}{rng.uniform(-20, 40):>9.1f}%"
        f"{rng.randint(2019, 2025):>7}"
        for _ in range(rng.randint(15, 80))
    )
    return f"QUARTERLY METRICS {index}\n\nSegment          Units   Growth   Year\n{rows}\n"


def log_file(rng: random.Random, index: int) -> str:
    return (
        "\n".join(
            f"2025-01-{rng.randint(10, 28)} 10:{rng.randint(10, 59)}:00 INFO svc-{index} "
            f"handled {rng.randint(1, 999)} requests in {rng.uniform(0.1, 9):.2f}s"
            for _ in range(rng.randint(30, 150))
        )
        + "\n"
    )


def generate_corpus(count: int, seed: int = 7) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    corpus = []
    for index in range(count):
        kind = index % 10
        if kind < 5:
            corpus.append((f"memo-{index}.md", strategic_memo(rng, index).encode()))
        elif kind < 8:
            corpus.append((f"report-{index}.txt", factual_report(rng, index).encode()))
        elif kind == 8:
            corpus.append((f"service-{index}.log", log_file(rng, index).encode()))
        else:
            text = interview_transcript()[: rng.randint(8_000, 30_000)] + f"\n(file {index})\n"
            corpus.append((f"interview-{index}.md", text.encode()))
    return corpus
