"""The texts an answer may quote (stored chunk text, a stored summary, or what a journal cut
says) and the citations it made."""

import re
from uuid import UUID

import asyncpg

from shared.contracts import Citation, ContextBundle
from shared.db import chunks, files, turns
from shared.text.citations import cited_refs, split_claims, without_ref_markers

SUMMARY_KINDS = frozenset({"file_summary", "section_summary"})


async def load_passages(pool: asyncpg.Pool, user_id: UUID, bundle: ContextBundle) -> dict[int, str]:
    """For each reference, what it may be quoted from: a passage's stored chunk text, a summary's
    stored summary, a journal source's cut essences (not the header they are rendered under), a
    memory fact's own words, all the user's own; else the text in context."""
    kinds = item_kinds(bundle)
    in_context = {item.ref: item.text for s in bundle.sections for item in s.items if item.ref}
    said = await journal_passages(pool, user_id, bundle)
    passages = {}
    for reference in bundle.references:
        text = in_context.get(reference.ref)
        if reference.chunk_id is not None:
            text = await stored_text(pool, user_id, reference, kinds.get(reference.ref))
        elif reference.turn_id is not None:
            text = said.get(reference.turn_id)
        elif reference.fact_id is not None:
            text = reference.snippet  # the fact as stored, without the heading it enters under
        if text:
            passages[reference.ref] = text
    return passages


async def journal_passages(
    pool: asyncpg.Pool, user_id: UUID, bundle: ContextBundle
) -> dict[UUID, str]:
    """What each cited past turn said, in its own words: the user's message and, for a turn
    imported from a conversation record, the reply too. A live answer is not quoted back: it was
    drawn from sources that are cited themselves (an answer is never its own evidence)."""
    turn_ids = [r.turn_id for r in bundle.references if r.turn_id is not None]
    if not turn_ids:
        return {}
    found = await turns.turns_by_id(pool, user_id=user_id, turn_ids=turn_ids)
    return {turn["id"]: turn_words(turn) for turn in found}


def turn_words(turn: asyncpg.Record) -> str:
    words = [f"User: {without_ref_markers(turn['user_message'])}"]
    if turn["imported"]:
        words.append(f"{turn['persona_name']}: {without_ref_markers(turn['ai_response'])}")
    return "\n".join(words)


async def stored_text(
    pool: asyncpg.Pool, user_id: UUID, reference: Citation, kind: str | None
) -> str | None:
    if kind == "file_summary" and reference.file_id is not None:
        record = await files.get_file(pool, user_id=user_id, file_id=reference.file_id)
        return record["summary"] if record is not None else None
    if reference.file_id is None or reference.chunk_id is None:
        return None
    row = await chunks.get_chunk(
        pool, user_id=user_id, file_id=reference.file_id, chunk_id=reference.chunk_id
    )
    if row is None:
        return None
    return row["summary"] if kind == "section_summary" else row["text"]


def item_kinds(bundle: ContextBundle) -> dict[int, str]:
    return {item.ref: item.kind for s in bundle.sections for item in s.items if item.ref}


def final_citations(answer: str, bundle: ContextBundle, passages: dict[int, str]) -> list[Citation]:
    """The references the answer cites, in order; a file passage's snippet becomes the exact
    chunk text of the first sentence citing it, when the sentence quotes it. A summary's
    snippet stays the one its reference holds: summary text is not chunk text, and a snippet
    is always an exact substring of the cited chunk."""
    by_ref = {reference.ref: reference for reference in bundle.references}
    kinds = item_kinds(bundle)
    claims = split_claims(answer)
    result = []
    for ref in cited_refs(answer):
        citation = by_ref.get(ref)
        if citation is None:
            continue
        quotes_chunk = citation.chunk_id is not None and kinds.get(ref) not in SUMMARY_KINDS
        if quotes_chunk and ref in passages:
            quoted = (find_quote(c.statement, passages[ref]) for c in claims if ref in c.refs)
            snippet = next((q for q in quoted if q), None)
            if snippet:
                citation = citation.model_copy(update={"snippet": snippet})
        result.append(citation)
    return result


def find_quote(statement: str, passage: str) -> str | None:
    """The passage's own text of a statement quoted with its whitespace collapsed, if present."""
    tokens = statement.split()
    if not tokens:
        return None
    found = re.search(r"\s+".join(re.escape(token) for token in tokens), passage)
    return found.group(0) if found else None
