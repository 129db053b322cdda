"""/v1/journal and /v1/instructions: the Artisan Cuts of the user's turns, and the lasting
instructions among them."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from services.gateway.auth import CurrentUser
from services.gateway.conversations.turn_schemas import InstructionList, JournalEntry, JournalPage
from services.gateway.conversations.turns_router import MAX_PAGE
from services.gateway.deps import Pool
from services.gateway.paging import Before
from services.gateway.schemas import ErrorResponse
from shared.db import journal
from shared.personas import get_persona, persona_names

router = APIRouter(tags=["journal"])

_ERRORS = {401: {"model": ErrorResponse}}


@router.get("/v1/journal", response_model=JournalPage, responses=_ERRORS)
async def list_journal(
    user: CurrentUser,
    pool: Pool,
    before: Before,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
) -> JournalPage:
    """Your journal, newest first."""
    page = await journal.list_journal(pool, user_id=user.id, limit=limit, before=before)
    return JournalPage(items=[JournalEntry.from_row(row) for row in page.items], next=page.next)


@router.get(
    "/v1/instructions",
    response_model=InstructionList,
    responses={**_ERRORS, 422: {"model": ErrorResponse, "description": "an unknown persona"}},
)
async def list_instructions(
    user: CurrentUser,
    pool: Pool,
    persona: Annotated[
        str | None,
        Query(max_length=100, description="only global ones and this persona's own"),
    ] = None,
) -> InstructionList:
    """Lasting instructions you gave, oldest first; a persona sees global ones and its own."""
    if persona is not None:
        found = get_persona(persona)
        if found is None:
            raise HTTPException(
                422,
                f"Unknown persona {persona!r}. Valid personas: {', '.join(persona_names())}.",
            )
        persona = found.name
    rows = await journal.list_instructions(pool, user_id=user.id, persona=persona)
    return InstructionList(items=[JournalEntry.from_row(row) for row in rows])
