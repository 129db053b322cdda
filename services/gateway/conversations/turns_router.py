"""/v1/turns: the user's conversation turns - list, star, delete, import past conversations."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response

from services.gateway.auth import CurrentUser, ExpensiveUser
from services.gateway.conversations.lookup import conversation_id_of, owned_conversation
from services.gateway.conversations.turn_import import import_turns
from services.gateway.conversations.turn_schemas import (
    ImportRequest,
    TurnList,
    TurnPage,
    TurnRecord,
)
from services.gateway.deps import MAX_ID_CHARS, Pool
from services.gateway.paging import Before
from services.gateway.schemas import ErrorResponse
from shared.db import turns

router = APIRouter(prefix="/v1/turns", tags=["turns"])

TURN_NOT_FOUND = "Turn not found: check the id with GET /v1/turns."
MAX_PAGE = 1000
_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}


async def parse_turn_id(turn_id: Annotated[str, Path(max_length=MAX_ID_CHARS)]) -> UUID:
    """A malformed id names no turn of yours: 404, like any other unknown id."""
    try:
        return UUID(turn_id)
    except ValueError:
        raise HTTPException(404, TURN_NOT_FOUND) from None


TurnId = Annotated[UUID, Depends(parse_turn_id)]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="turns per page")]


@router.get("", response_model=TurnPage, responses=_ERRORS)
async def list_turns(
    user: CurrentUser,
    pool: Pool,
    before: Before,
    limit: Limit = 20,
    conversation_id: Annotated[
        str | None,
        Query(max_length=MAX_ID_CHARS, description="only this conversation's turns"),
    ] = None,
) -> TurnPage:
    """Your turns (of one conversation, if given), newest first."""
    conversation = None
    if conversation_id is not None:
        conversation = conversation_id_of(conversation_id)
        await owned_conversation(pool, user.id, conversation)  # another user's: 404
    page = await turns.list_turns(
        pool, user_id=user.id, limit=limit, before=before, conversation_id=conversation
    )
    return TurnPage(items=[TurnRecord.from_row(row) for row in page.items], next=page.next)


@router.get("/{turn_id}", response_model=TurnRecord, responses=_ERRORS)
async def get_turn(turn_id: TurnId, user: CurrentUser, pool: Pool) -> TurnRecord:
    row = await turns.get_turn(pool, user_id=user.id, turn_id=turn_id)
    if row is None:
        raise HTTPException(404, TURN_NOT_FOUND)
    return TurnRecord.from_row(row)


@router.post("/{turn_id}/star", response_model=TurnRecord, responses=_ERRORS)
async def star_turn(turn_id: TurnId, user: CurrentUser, pool: Pool) -> TurnRecord:
    """Star a turn: it is loaded into every later context of its user (P2)."""
    return await _set_starred(pool, user.id, turn_id, starred=True)


@router.delete("/{turn_id}/star", response_model=TurnRecord, responses=_ERRORS)
async def unstar_turn(turn_id: TurnId, user: CurrentUser, pool: Pool) -> TurnRecord:
    return await _set_starred(pool, user.id, turn_id, starred=False)


@router.delete("/{turn_id}", status_code=204, response_class=Response, responses=_ERRORS)
async def delete_turn(turn_id: TurnId, user: CurrentUser, pool: Pool) -> Response:
    """Delete the turn, its journal entry and the memory facts learned from it."""
    if not await turns.delete_turn(pool, user_id=user.id, turn_id=turn_id):
        raise HTTPException(404, TURN_NOT_FOUND)
    return Response(status_code=204)


@router.post(
    "/import",
    status_code=202,
    response_model=TurnList,
    responses={
        401: {"model": ErrorResponse},
        404: {"model": ErrorResponse, "description": "conversation_id is not yours"},
        409: {"model": ErrorResponse, "description": "a turn with another persona than its"},
        413: {"model": ErrorResponse, "description": "more than 1000 turns"},
        422: {"model": ErrorResponse, "description": "an unknown persona, or a malformed turn"},
    },
)
async def import_history(body: ImportRequest, user: ExpensiveUser, pool: Pool) -> TurnList:
    """Bring in past conversations; each turn is journaled like a live one. The new turns go
    into `conversation_id`, or else start one conversation per persona. Importing the same
    history again adds nothing."""
    rows = await import_turns(
        pool, user_id=user.id, turns=body.turns, conversation_id=body.conversation_id
    )
    return TurnList(items=[TurnRecord.from_row(row) for row in rows])


async def _set_starred(pool: Pool, user_id: UUID, turn_id: UUID, *, starred: bool) -> TurnRecord:
    row = await turns.set_starred(pool, user_id=user_id, turn_id=turn_id, starred=starred)
    if row is None:
        raise HTTPException(404, TURN_NOT_FOUND)
    return TurnRecord.from_row(row)
