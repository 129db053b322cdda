"""The context service's request/reply subjects (core NATS, queue group "context"):
context.build replies with the ContextBundle, context.search with the ranked passages."""

import logging
from uuid import UUID

import asyncpg
from faststream.nats import NatsResponse, NatsRouter

from services.context.assemble import build_context
from services.context.retrieval import search
from shared.bus import LoopContext
from shared.context_client import ERROR_HEADER
from shared.contracts import ContextBundle, ContextRequest, Request, SearchRequest, SearchResults

logger = logging.getLogger(__name__)
router = NatsRouter()
QUEUE_GROUP = "context"  # replicas share the requests: each one is answered once


@router.subscriber(Request.CONTEXT_BUILD.value, queue=QUEUE_GROUP)
async def on_context_build(
    request: ContextRequest, pool: asyncpg.Pool = LoopContext("pool")
) -> ContextBundle | NatsResponse:
    """Assemble the bundle; a failure is replied as such, so the caller need not time out."""
    try:
        return await build_context(pool, request)
    except Exception as exc:
        return failure_reply("building the context", request.user_id, exc)


@router.subscriber(Request.CONTEXT_SEARCH.value, queue=QUEUE_GROUP)
async def on_context_search(
    request: SearchRequest, pool: asyncpg.Pool = LoopContext("pool")
) -> SearchResults | NatsResponse:
    """Rank the user's passages for the question; a failure is replied as such."""
    try:
        return await search(pool, request)
    except Exception as exc:
        return failure_reply("searching", request.user_id, exc)


def failure_reply(what: str, user_id: UUID, exc: Exception) -> NatsResponse:
    """The error as a reply (ERROR_HEADER set), logged with its traceback."""
    logger.exception("%s for user %s failed", what, user_id)
    detail = f"{what} failed: {type(exc).__name__}: {exc}"[:500]
    return NatsResponse({"error": detail}, headers={ERROR_HEADER: detail.replace("\n", " ")})
