"""Context bundles for chat unit tests, shaped as the context service builds them."""

import uuid
from uuid import UUID

from shared.contracts import Citation, ContextBundle, ContextItem, ContextSection

PRICING = (
    "# Pricing decision\n"
    "After the March review we decided to raise the Pro plan to $49 per seat per month.\n"
    "Existing customers keep the old price of $39 until the end of June.\n"
    "The Enterprise tier stays on custom contracts negotiated by sales.\n"
)
HIRING = (
    "## Hiring plan\n"
    "We will hire two backend engineers in the second quarter. "
    "The recruiting budget for the year is 60,000 euros. "
    "Interviews are run by Stefan and one senior engineer.\n"
)


def file_bundle(
    passages: dict[str, str], *, confidence: float = 0.8, query: str = "q", path: str = "search"
) -> tuple[ContextBundle, dict[int, str]]:
    """A bundle citing each passage as one chunk of its own file, and the passage texts by ref."""
    items, references, texts = [], [], {}
    for ref, (filename, text) in enumerate(passages.items(), start=1):
        file_id, chunk_id = uuid.uuid4(), uuid.uuid4()
        items.append(ContextItem(kind="chunk", id=chunk_id, text=text, tokens=10, ref=ref))
        references.append(citation(ref, file_id, chunk_id, filename, text))
        texts[ref] = text
    bundle = ContextBundle(
        persona="gunnar",
        query=query,
        path=path,
        sections=[ContextSection(name="files", priority="F", items=items, tokens=10 * len(items))],
        references=references,
        total_tokens=10 * len(items),
        cap_tokens=52_428,
        retrieval_confidence=confidence,
        journal_entries=0,
    )
    return bundle, texts


def citation(ref: int, file_id: UUID, chunk_id: UUID, filename: str, text: str) -> Citation:
    return Citation(
        ref=ref,
        file_id=file_id,
        chunk_id=chunk_id,
        filename=filename,
        title=text.splitlines()[0].lstrip("# "),
        char_start=0,
        char_end=len(text),
        line_start=1,
        line_end=text.count("\n") + 1,
        snippet=text[:80],
    )
