"""A summary question over the bundle the context service builds for path B (a file's summary
citing its first chunk, then each section's summary citing its chunk): the answer quotes the
stored summaries, each sentence once; the citations still quote the chunks exactly."""

import uuid
from itertools import permutations

from services.chat.sources import final_citations
from services.context.snippets import snippet_for
from shared.contracts import Citation, ContextBundle, ContextItem, ContextSection
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.providers.local.chunking import chunk_text
from shared.providers.local.summarise import file_summary, section_summary
from shared.text.citations import split_claims
from shared.text.words import words
from tests.fixtures.board_meeting import BOARD_MEETING

QUESTION = "Summarise this document"
SECTIONS = [
    ("Pricing decision", "We decided to move from per-seat pricing to usage tiers. " * 2),
    ("Risks", "The risk is churn among small teams, which we will watch every month."),
]


def summary_bundle(
    documents: dict[str, list[tuple[str, str]]] | None = None, question: str = QUESTION
) -> tuple[ContextBundle, dict[int, str], dict[uuid.UUID, str]]:
    """The bundle for `documents` (filename → sections; memo.md by default), the passages
    load_passages gives it (the stored summaries) and the chunk texts by chunk id."""
    # (kind, file, item id, text in context, stored summary, the chunk it cites)
    rows = []
    for filename, sections in (documents or {"memo.md": SECTIONS}).items():
        file_id = uuid.uuid4()
        chunks = [(uuid.uuid4(), title, text) for title, text in sections]
        summaries = [section_summary(text, title) for _, title, text in chunks]
        whole = file_summary(
            filename, [(title, s) for (_, title, _), s in zip(chunks, summaries, strict=True)]
        )
        text = f"Summary of {filename}: {whole}"
        rows.append(("file_summary", filename, file_id, file_id, text, whole, chunks[0]))
        for chunk, summary in zip(chunks, summaries, strict=True):
            text = f"{filename} — {chunk[1]}: {summary}"
            rows.append(("section_summary", filename, file_id, chunk[0], text, summary, chunk))
    items, references, passages, chunk_texts = [], [], {}, {}
    for ref, row in enumerate(rows, start=1):
        kind, filename, file_id, item_id, text, summary, (chunk_id, title, chunk_text) = row
        items.append(ContextItem(kind=kind, id=item_id, text=text, tokens=20, ref=ref))
        passages[ref] = summary
        chunk_texts[chunk_id] = chunk_text
        references.append(
            Citation(
                ref=ref,
                file_id=file_id,
                filename=filename,
                chunk_id=chunk_id,
                title=title,
                char_start=0,
                char_end=len(chunk_text),
                line_start=1,
                line_end=1,
                snippet=snippet_for(chunk_text, question),
            )
        )
    bundle = ContextBundle(
        persona="gunnar",
        query=question,
        path="summary",
        sections=[ContextSection(name="files", priority="F", items=items, tokens=20 * len(items))],
        references=references,
        total_tokens=20 * len(items),
        cap_tokens=52_428,
        retrieval_confidence=1.0,
        journal_entries=0,
    )
    return bundle, passages, chunk_texts


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


THREE_FILES = {
    "pricing.md": [
        ("Pricing decision", "We decided to move from per-seat pricing to usage tiers. " * 2),
        ("Pricing risks", "The risk is churn among small teams, which we will watch monthly."),
        ("Tier calculator", "The tier calculator ships in March so customers can compare."),
    ],
    "hiring.md": [
        ("Hiring plan", "We will hire two backend engineers before the third quarter."),
        ("Interviews", "Every candidate meets two engineers and the product lead."),
    ],
    "offsite.md": [
        ("Sales offsite", "The sales team asked for a discount ladder on annual contracts."),
        ("Discounts", "Annual contracts on usage tiers get a ten percent discount next year."),
    ],
}


async def test_a_summary_of_several_files_quotes_every_file_each_sentence_once() -> None:
    bundle, passages, chunk_texts = summary_bundle(THREE_FILES, "Summarise my files")
    request = AnswerInput(get_persona("kirby"), "Summarise my files", bundle, passages)
    stream = LocalAnswerer().stream_answer(request)
    answer = "".join([piece async for piece in stream])
    assert not stream.refused

    citations = final_citations(answer, bundle, passages)
    cited_files = [c.filename for c in citations]
    assert set(cited_files) == set(THREE_FILES), answer
    # in the files' order, each file's sentences together
    assert list(dict.fromkeys(cited_files)) == list(THREE_FILES), answer
    said = [f" {' '.join(words(c.statement))} " for c in split_claims(answer) if c.refs]
    for one, other in permutations(said, 2):
        assert one not in other, answer
    for citation in citations:
        assert citation.snippet in chunk_texts[citation.chunk_id]


async def test_a_board_meeting_summary_answer_says_what_it_is_and_what_was_decided() -> None:
    sections = [(s.title, BOARD_MEETING[s.start : s.end]) for s in chunk_text(BOARD_MEETING)]
    question = "Summarise the board meeting"
    bundle, passages, _ = summary_bundle({"board-meeting-2025-03.md": sections}, question)
    vlad = get_persona("vlad")
    stream = LocalAnswerer().stream_answer(AnswerInput(vlad, question, bundle, passages))
    answer = "".join([piece async for piece in stream])
    opening, body = answer.split("\n\n")
    assert opening == vlad.opening("summary", question)
    assert body.startswith("board-meeting-2025-03.md: meeting notes, “Board meeting — March 2025”.")
    for said in ("our runway is 14 months", "we decided to raise a $3M seed extension", "April 15"):
        assert said in body, body
    assert "sections on" not in body and "- " not in body  # no contents list, no bullets
