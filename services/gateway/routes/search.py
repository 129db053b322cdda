"""/v1/search: the ranked chunks a question would retrieve, with their scores."""

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from services.context.snippets import snippet_for
from services.gateway.auth import CurrentUser
from services.gateway.deps import Pool
from services.gateway.errors import StorableText
from services.gateway.schemas import ErrorResponse
from shared.config import model_settings
from shared.db.search import hybrid_search
from shared.providers import registry
from shared.usage import WorkContext, working_on

router = APIRouter(tags=["search"])


class SearchHit(BaseModel):
    """A chunk that answers the query, citable down to its characters and lines."""

    ref: int = Field(description="1-based rank")
    file_id: str
    filename: str
    chunk_id: str
    title: str
    char_start: int
    char_end: int
    line_start: int
    line_end: int
    snippet: str = Field(description="an exact substring of the chunk's text")
    score: float = Field(description="reciprocal-rank fusion of BM25 full-text and vector ranks")


class SearchResults(BaseModel):
    items: list[SearchHit]


@router.get("/v1/search", response_model=SearchResults, responses={401: {"model": ErrorResponse}})
async def search(
    user: CurrentUser,
    pool: Pool,
    q: Annotated[StorableText, Query(min_length=1, max_length=2000, description="the question")],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
) -> SearchResults:
    """Hybrid search (full text + vectors) over your chunks."""
    weight = model_settings().vector_weight
    vector = None
    if weight > 0:  # at weight 0 vectors have no vote: no need to embed the question
        with working_on(WorkContext(user_id=user.id)):
            [vector] = await registry.embedder().embed([q], input_type="query")
    rows = await hybrid_search(
        pool, user_id=user.id, text=q, vector=vector, limit=limit, vector_weight=weight
    )
    return SearchResults(
        items=[
            SearchHit(
                ref=rank,
                file_id=str(row["file_id"]),
                filename=row["filename"],
                chunk_id=str(row["chunk_id"]),
                title=row["title"],
                char_start=row["char_start"],
                char_end=row["char_end"],
                line_start=row["line_start"],
                line_end=row["line_end"],
                snippet=snippet_for(row["text"], q),
                score=float(row["score"]),
            )
            for rank, row in enumerate(rows, start=1)
        ]
    )
