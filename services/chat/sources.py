"""The texts an answer may quote (stored chunk text, or a journal cut) and the citations it made."""

import re
from uuid import UUID

import asyncpg

from shared.contracts import Citation, ContextBundle
from shared.db import chunks
from shared.providers.local.answer_check import cited_refs, split_claims


async def load_passages(pool: asyncpg.Pool, user_id: UUID, bundle: ContextBundle) -> dict[int, str]:
    """For each reference: its chunk's stored text (the user's own), else the text in context."""
    in_context = {item.ref: item.text for s in bundle.sections for item in s.items if item.ref}
    passages = {}
    for reference in bundle.references:
        text = in_context.get(reference.ref)
        if reference.chunk_id is not None:
            row = await chunks.get_chunk(pool, chunk_id=reference.chunk_id)
            text = row["text"] if row is not None and row["user_id"] == user_id else None
        if text:
            passages[reference.ref] = text
    return passages


def final_citations(answer: str, bundle: ContextBundle, passages: dict[int, str]) -> list[Citation]:
    """The references the answer cites, in order; a file reference's snippet becomes the
    exact passage text of the first sentence citing it, when the sentence quotes it."""
    by_ref = {reference.ref: reference for reference in bundle.references}
    claims = split_claims(answer)
    result = []
    for ref in cited_refs(answer):
        citation = by_ref.get(ref)
        if citation is None:
            continue
        if citation.chunk_id is not None and ref in passages:
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
