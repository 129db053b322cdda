"""/v1/search: the ranked chunks a question would retrieve, with their scores (the context
service ranks them: the gateway never calls a model)."""

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import AfterValidator, StringConstraints

from services.gateway.auth import ExpensiveUser
from services.gateway.deps import Broker
from services.gateway.errors import storable
from services.gateway.schemas import ErrorResponse
from shared.context_client import request_search
from shared.contracts import MAX_SEARCH_HITS, SearchRequest, SearchResults
from shared.secrets import redact

router = APIRouter(tags=["search"])
SEARCH_TIMEOUT_SECONDS = 10.0
MAX_QUESTION_CHARS = 2000
# the bounds come before the storable check, so a long question is told its length in characters
Question = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_QUESTION_CHARS), AfterValidator(storable)
]


@router.get(
    "/v1/search",
    response_model=SearchResults,
    responses={
        401: {"model": ErrorResponse},
        503: {"model": ErrorResponse, "description": "the context service is not running"},
    },
)
async def search(
    user: ExpensiveUser,
    broker: Broker,
    q: Annotated[Question, Query(description="the question")],
    limit: Annotated[int, Query(ge=1, le=MAX_SEARCH_HITS)] = 10,
) -> SearchResults:
    """Hybrid search (full text + vectors) over your chunks."""
    # a secret in a question is never embedded (maybe by a remote API) nor searched for
    request = SearchRequest(user_id=user.id, query=redact(q).text, limit=limit)
    # no context service, or a failed search: a 503 saying so (errors.py)
    return await request_search(broker, request, timeout=SEARCH_TIMEOUT_SECONDS)
