"""/v1/memory: durable facts about you and your company, learned from your turns (seed 001)."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Path, Response

from services.gateway.auth import CurrentUser
from services.gateway.deps import MAX_ID_CHARS, Pool
from services.gateway.schemas import ErrorResponse
from services.gateway.turn_schemas import MemoryExport, MemoryFactRecord, MemoryList
from shared.db import memory_facts

router = APIRouter(prefix="/v1/memory", tags=["memory"])

FACT_NOT_FOUND = "Memory fact not found: check the id with GET /v1/memory."
_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}


@router.get("", response_model=MemoryList, responses=_ERRORS)
async def list_memory(user: CurrentUser, pool: Pool) -> MemoryList:
    rows = await memory_facts.list_facts(pool, user_id=user.id)
    return MemoryList(items=[MemoryFactRecord.from_row(row) for row in rows])


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
