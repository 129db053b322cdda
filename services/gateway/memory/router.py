"""/v1/memory: durable facts about you and your company, learned from your turns (seed 001)."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Path, Query, Response

from services.gateway.auth import CurrentUser
from services.gateway.deps import MAX_ID_CHARS, Pool
from services.gateway.memory.schemas import (
    FactKind,
    MemoryExport,
    MemoryFactRecord,
    MemoryPage,
)
from services.gateway.paging import DEFAULT_LIMIT, INVALID_PAGE, Before, Limit
from services.gateway.schemas import ErrorResponse
from shared.db import memory_facts

router = APIRouter(prefix="/v1/memory", tags=["memory"])

FACT_NOT_FOUND = "Memory fact not found: check the id with GET /v1/memory."
_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}


@router.get("", response_model=MemoryPage, responses=_ERRORS | INVALID_PAGE)
async def list_memory(
    user: CurrentUser,
    pool: Pool,
    before: Before,
    limit: Limit = DEFAULT_LIMIT,
    kind: Annotated[
        FactKind | None, Query(description="only facts about the user, or the company")
    ] = None,
) -> MemoryPage:
    """The facts learned about you and your company, newest first, a page at a time: follow
    `next` (as `before`); GET /v1/memory/export has them all."""
    page = await memory_facts.list_fact_page(
        pool, user_id=user.id, limit=limit, before=before, kind=kind
    )
    return MemoryPage(items=[MemoryFactRecord.from_row(row) for row in page.items], next=page.next)


@router.get("/export", response_model=MemoryExport, responses=_ERRORS)
async def export_memory(user: CurrentUser, pool: Pool) -> MemoryExport:
    """USER_MEMORY.md and COMPANY_MEMORY.md: one bullet per fact, with confidence and date."""
    return MemoryExport(files=await memory_facts.export(pool, user_id=user.id))


@router.delete("/{fact_id}", status_code=204, response_class=Response, responses=_ERRORS)
async def delete_memory_fact(
    fact_id: Annotated[str, Path(max_length=MAX_ID_CHARS)], user: CurrentUser, pool: Pool
) -> Response:
    try:
        parsed = UUID(fact_id)
    except ValueError:
        raise HTTPException(404, FACT_NOT_FOUND) from None
    if not await memory_facts.delete_fact(pool, user_id=user.id, fact_id=parsed):
        raise HTTPException(404, FACT_NOT_FOUND)
    return Response(status_code=204)
