"""Retrieval: a question embedded (its model call counted against the user) and the user's
passages ranked by hybrid search. The context build's file search and GET /v1/search
(context.search) both go through here."""

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import asyncpg

from services.context.hybrid_search import TermStats, hybrid_search
from services.context.snippets import snippet_for
from shared.config import model_settings
from shared.contracts import SearchHit, SearchRequest, SearchResults
from shared.providers import registry
from shared.usage import WorkContext, working_on


async def embed_question(user_id: UUID, question: str) -> list[float]:
    """The question's vector, its model call recorded against the user who asked it."""
    with working_on(WorkContext(user_id=user_id)):
        [vector] = await registry.embedder().embed([question], input_type="query")
    return vector


async def question_vector(user_id: UUID, question: str, vector_weight: float) -> list[float] | None:
    """The vector that votes in hybrid search; None at weight 0, where vectors have no vote
    and embedding the question would be a wasted model call."""
    if vector_weight <= 0:
        return None
    return await embed_question(user_id, question)


async def ranked_passages(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    question: str,
    vector: Sequence[float] | None,
    vector_weight: float,
    limit: int,
    file_ids: Sequence[UUID] | None = None,
    stats: TermStats | None = None,
) -> list[dict[str, Any]]:
    """The user's best `limit` chunks for the question, best first (see hybrid_search)."""
    return await hybrid_search(
        conn,
        user_id=user_id,
        text=question,
        vector=vector,
        limit=limit,
        file_ids=file_ids,
        vector_weight=vector_weight,
        stats=stats,
    )


async def search(pool: asyncpg.Pool, request: SearchRequest) -> SearchResults:
    """The reply to context.search: the ranked hits, each with its exact snippet."""
    weight = model_settings().vector_weight
    vector = await question_vector(request.user_id, request.query, weight)
    async with pool.acquire() as conn:
        rows = await ranked_passages(
            conn,
            user_id=request.user_id,
            question=request.query,
            vector=vector,
            vector_weight=weight,
            limit=request.limit,
        )
    return SearchResults(
        items=[search_hit(rank, row, request.query) for rank, row in enumerate(rows, start=1)]
    )


def search_hit(rank: int, row: dict[str, Any], question: str) -> SearchHit:
    """One hit as the API shows it, quoting the part of the chunk the question is about."""
    return SearchHit(
        ref=rank,
        file_id=str(row["file_id"]),
        filename=row["filename"],
        chunk_id=str(row["chunk_id"]),
        title=row["title"],
        char_start=row["char_start"],
        char_end=row["char_end"],
        line_start=row["line_start"],
        line_end=row["line_end"],
        snippet=snippet_for(row["text"], question),
        score=float(row["score"]),
    )
