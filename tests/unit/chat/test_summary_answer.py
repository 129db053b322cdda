"""A summary question over the bundle the context service builds for path B (a file's summary
citing its first chunk, then each section's summary citing its chunk): the answer quotes the
stored summaries, each sentence once; the citations still quote the chunks exactly."""

import uuid
from itertools import permutations

from services.chat.sources import final_citations
from shared.context.snippets import snippet_for
from shared.contracts import Citation, ContextBundle, ContextItem, ContextSection
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.providers.local.answer_check import split_claims
from shared.providers.local.summarise import file_summary, section_summary
from shared.providers.local.text import words

QUESTION = "Summarise this document"
SECTIONS = [
    ("Pricing decision", "We decided to move from per-seat pricing to usage tiers. " * 2),
    ("Risks", "The risk is churn among small teams, which we will watch every month."),
]


def summary_bundle() -> tuple[ContextBundle, dict[int, str], dict[uuid.UUID, str]]:
    """The bundle, the passages load_passages gives it (the stored summaries) and chunk texts."""
    file_id = uuid.uuid4()
    chunks = [(uuid.uuid4(), title, text) for title, text in SECTIONS]
    summaries = [section_summary(text, title) for _, title, text in chunks]
    whole = file_summary(
        "memo.md", [(title, s) for (_, title, _), s in zip(chunks, summaries, strict=True)]
    )
    # (kind, item id, text in context, stored summary, the chunk it cites)
    rows = [("file_summary", file_id, f"Summary of memo.md: {whole}", whole, chunks[0])]
    for chunk, summary in zip(chunks, summaries, strict=True):
        rows.append(
            ("section_summary", chunk[0], f"memo.md — {chunk[1]}: {summary}", summary, chunk)
        )
    items, references, passages = [], [], {}
    for ref, (kind, item_id, text, summary, (chunk_id, title, chunk_text)) in enumerate(
        rows, start=1
    ):
        items.append(ContextItem(kind=kind, id=item_id, text=text, tokens=20, ref=ref))
        passages[ref] = summary
        references.append(
            Citation(
                ref=ref,
                file_id=file_id,
                filename="memo.md",
                chunk_id=chunk_id,
                title=title,
                char_start=0,
                char_end=len(chunk_text),
                line_start=1,
                line_end=1,
                snippet=snippet_for(chunk_text, QUESTION),
            )
        )
    bundle = ContextBundle(
        persona="gunnar",
        query=QUESTION,
        path="summary",
        sections=[ContextSection(name="files", priority="F", items=items, tokens=20 * len(items))],
        references=references,
        total_tokens=20 * len(items),
        cap_tokens=52_428,
        retrieval_confidence=1.0,
        journal_entries=0,
    )
    return bundle, passages, {chunk_id: text for chunk_id, _, text in chunks}


async def test_a_summary_answer_quotes_each_summary_sentence_once_with_exact_snippets() -> None:
    bundle, passages, chunk_texts = summary_bundle()
    request = AnswerInput(get_persona("gunnar"), QUESTION, bundle, passages)
    stream = LocalAnswerer().stream_answer(request)
    answer = "".join([piece async for piece in stream])
    assert not stream.refused

    said = [f" {' '.join(words(c.statement))} " for c in split_claims(answer) if c.refs]
    assert said
    for one, other in permutations(said, 2):
        assert one not in other, answer  # no sentence repeats another, whole or in part
    assert "usage tiers" in answer and "churn" in answer
    for claim in (c for c in split_claims(answer) if c.refs):
        [ref] = claim.refs
        assert " ".join(claim.statement.split()) in " ".join(passages[ref].split())
    for citation in final_citations(answer, bundle, passages):
        assert citation.snippet and citation.snippet in chunk_texts[citation.chunk_id]
