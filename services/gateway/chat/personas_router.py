"""/v1/personas: the advisors a user can talk to."""

from fastapi import APIRouter
from pydantic import BaseModel, Field

from services.gateway.auth import CurrentUser
from services.gateway.schemas import ErrorResponse
from shared.personas import load_personas

router = APIRouter(tags=["personas"])


class PersonaSummary(BaseModel):
    name: str = Field(description="what POST /v1/chat takes as `persona`")
    display_name: str
    role: str
    initial: str = Field(description="one letter, for avatars")
    description: str


class PersonaList(BaseModel):
    items: list[PersonaSummary]


@router.get("/v1/personas", response_model=PersonaList, responses={401: {"model": ErrorResponse}})
async def list_personas(user: CurrentUser) -> PersonaList:
    """Every persona, by name."""
    return PersonaList(
        items=[PersonaSummary(**persona.summary()) for persona in load_personas().values()]
    )
