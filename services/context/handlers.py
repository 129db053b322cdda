"""context.build (core NATS request/reply, queue group "context"): reply with the ContextBundle."""

import logging

import asyncpg
from faststream import Context
from faststream.nats import NatsResponse, NatsRouter

from services.context.assemble import build_context
from shared.context_client import ERROR_HEADER
from shared.contracts import ContextBundle, ContextRequest, Request

logger = logging.getLogger(__name__)
router = NatsRouter()
QUEUE_GROUP = "context"  # replicas share the requests: each one is answered once


@router.subscriber(Request.CONTEXT_BUILD.value, queue=QUEUE_GROUP)
async def on_context_build(
    request: ContextRequest, pool: asyncpg.Pool = Context("pool")
) -> ContextBundle | NatsResponse:
    """Assemble the bundle; a failure is replied as such, so the caller need not time out."""
    try:
        return await build_context(pool, request)
    except Exception as exc:
        logger.exception("context for user %s failed", request.user_id)
        detail = f"building the context failed: {type(exc).__name__}: {exc}"[:500]
        return NatsResponse({"error": detail}, headers={ERROR_HEADER: detail.replace("\n", " ")})
