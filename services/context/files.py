"""File context (seed 003): stored summaries for summary questions (of the files a question's
topic concerns, when it names one), hybrid search with the 0.7 → 0.5 → 0.3 relevance fallback
for specific ones; attachments as references (seed 004)."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from uuid import UUID

import asyncpg

from services.context import render
from services.context.budget import Candidate
from services.context.hybrid_search import TermStats, term_stats
from services.context.intent import summary_topic
from services.context.relevance import FALLBACK_TIERS, first_tier, text_relevance
from services.context.retrieval import ranked_passages
from services.context.snippets import snippet_for
from shared.contracts import ContextRequest
from shared.db import context as queries

SEARCH_DEPTH = 20  # hits ranked before the relevance tiers pick the best few


@dataclass
class FileContext:
    path: str  # summary | search
    candidates: list[Candidate] = field(default_factory=list)
    confidence: float = 0.0  # best relevance among the passages offered


def attachment_candidates(files: Sequence[asyncpg.Record]) -> list[Candidate]:
    """`[Attached: name (type)]` per attached file: a reference, never the content."""
    return [
        Candidate(
            kind="attachment", id=f["id"], text=render.attachment_text(f), key=("file", f["id"])
        )
        for f in files
    ]


async def summary_context(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    query: str,
    file_ids: Sequence[UUID] | None,
) -> FileContext:
    """Path B: each file's stored summary, then its sections' summaries, each citable."""
    files = await queries.summarised_files(conn, user_id=user_id, file_ids=file_ids)
    if not files:
        return FileContext(path="summary")
    sections = await queries.section_rows(conn, user_id=user_id, file_ids=[f["id"] for f in files])
    by_file: dict[UUID, list[asyncpg.Record]] = {}
    for row in sections:
        by_file.setdefault(row["file_id"], []).append(row)
    candidates = []
    for file in files:
        chunks = by_file.get(file["id"], [])
        if not chunks:
            continue
        context = {"filename": file["filename"], "file_id": file["id"]}
        if file["summary"]:
            first, last = chunks[0], chunks[-1]
            citation = render.chunk_citation(
                {**first, **context}, query, title=f"{file['filename']} (whole file)"
            )
            citation.update(char_end=last["char_end"], line_end=last["line_end"])
            citation["snippet"] = snippet_for(first["text"], query)
            candidates.append(
                Candidate(
                    kind="file_summary",
                    id=file["id"],
                    text=f"Summary of {file['filename']}: {file['summary']}",
                    citation=citation,
                )
            )
        for chunk in chunks:
            if chunk["summary"]:
                title = chunk["title"] or f"section {chunk['chunk_index'] + 1}"
                candidates.append(
                    Candidate(
                        kind="section_summary",
                        id=chunk["chunk_id"],
                        text=f"{file['filename']} — {title}: {chunk['summary']}",
                        citation=render.chunk_citation({**chunk, **context}, query),
                    )
                )
    return FileContext("summary", candidates, 1.0 if candidates else 0.0)


async def summary_question_context(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    query: str,
    file_ids: Sequence[UUID] | None,
    passages: int,
) -> FileContext:
    """Path B: the attached files' summaries; with none attached, those of the files the
    question's topic concerns, or of the newest files when it names no topic."""
    topic = summary_topic(query) if file_ids is None else ""
    if topic:
        found = await topical_summary_context(
            conn, user_id=user_id, query=query, topic=topic, passages=passages
        )
        if found is not None:
            return found
    return await summary_context(conn, user_id=user_id, query=query, file_ids=file_ids)


async def topical_summary_context(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    query: str,
    topic: str,
    passages: int,
) -> FileContext | None:
    """Path B for a summary question about something ("an overview of our pricing"), no file
    attached: the summaries of the files whose summaries or passages the topic's words find,
    as relevant as the best of those; the passages when none of those files has summaries
    yet; nothing (so the answer refuses) when no file is about it. None when the topic has no
    searchable word: a summary of everything."""
    stats = await term_stats(conn, user_id=user_id, text=topic)
    if not stats.terms:
        return None
    about = await search_context(
        conn,
        user_id=user_id,
        query=topic,
        stats=stats,
        vector=None,
        vector_weight=0.0,
        file_ids=None,
        passages=passages,
    )
    relevance: dict[UUID, float] = {}
    for hit in about.candidates:
        file_id = hit.citation["file_id"]
        relevance[file_id] = max(relevance.get(file_id, 0.0), hit.score or 0.0)
    found = await summary_context(conn, user_id=user_id, query=query, file_ids=None)
    missing = relevance.keys() - {c.citation["file_id"] for c in found.candidates}
    if missing:
        more = await summary_context(conn, user_id=user_id, query=query, file_ids=list(missing))
        found.candidates += more.candidates
    scores = await text_relevance(conn, stats, [c.text for c in found.candidates])
    for summary, score in zip(found.candidates, scores, strict=True):
        file_id = summary.citation["file_id"]
        relevance[file_id] = max(relevance.get(file_id, 0.0), score)
    kept = [c for c in found.candidates if relevance[c.citation["file_id"]] >= FALLBACK_TIERS[-1]]
    for candidate in kept:
        candidate.score = round(relevance[candidate.citation["file_id"]], 4)
    if not kept:
        return about
    return FileContext("summary", kept, max(c.score for c in kept))


async def search_context(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    query: str,
    stats: TermStats,
    vector: Sequence[float] | None,
    vector_weight: float,
    file_ids: Sequence[UUID] | None,
    passages: int,
) -> FileContext:
    """Path A: hybrid search, then the strictest relevance tier that any hit reaches."""
    hits = await ranked_passages(
        conn,
        user_id=user_id,
        question=query,
        vector=vector,
        vector_weight=vector_weight,
        limit=SEARCH_DEPTH,
        file_ids=file_ids,
        stats=stats,
    )
    chosen = first_tier(hits, passages)
    candidates = [
        Candidate(
            kind="chunk",
            id=hit["chunk_id"],
            text=render.chunk_text(hit),
            score=round(hit["relevance"], 4),
            citation=render.chunk_citation(hit, query),
        )
        for hit in chosen
    ]
    return FileContext("search", candidates, max((h["relevance"] for h in chosen), default=0.0))


async def question_files(
    pool: asyncpg.Pool,
    request: ContextRequest,
    *,
    summary_path: bool,
    vector: Sequence[float] | None,
    vector_weight: float,
    passages: int,
) -> tuple[list[asyncpg.Record], TermStats, FileContext]:
    """The files side of a context build: the attached files, the question's term statistics
    over the files it may draw on, and the summaries (path B) or passages (path A) chosen."""
    async with pool.acquire() as conn:
        attached = []
        if request.attachments:
            attached = await queries.owned_files(
                conn, user_id=request.user_id, file_ids=request.attachments
            )
        scope = [f["id"] for f in attached] if request.attachments else None
        stats = await term_stats(conn, user_id=request.user_id, text=request.query, file_ids=scope)
        found = FileContext(path="search")
        if summary_path:
            found = await summary_question_context(
                conn,
                user_id=request.user_id,
                query=request.query,
                file_ids=scope,
                passages=passages,
            )
        if not summary_path or (found.path == "summary" and not found.candidates):
            # a specific question, or files without summaries stored yet
            found = await search_context(
                conn,
                user_id=request.user_id,
                query=request.query,
                stats=stats,
                vector=vector,
                vector_weight=vector_weight,
                file_ids=scope,
                passages=passages,
            )
        return attached, stats, found
