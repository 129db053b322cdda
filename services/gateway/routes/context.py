"""/v1/context/preview: what a question would load into the context, section by section."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Query

from services.gateway.auth import CurrentUser
from services.gateway.deps import FILE_NOT_FOUND, Broker, Pool
from services.gateway.errors import StorableText
from services.gateway.schemas import ErrorResponse
from shared.config import chat_settings
from shared.context_client import request_context
from shared.contracts import ContextBundle, ContextRequest
from shared.db import context as queries
from shared.personas import get_persona, persona_names
from shared.secrets import redact

router = APIRouter(tags=["context"])
PREVIEW_TIMEOUT_SECONDS = 10.0


@router.get(
    "/v1/context/preview",
    response_model=ContextBundle,
    responses={
        401: {"model": ErrorResponse},
        404: {"model": ErrorResponse, "description": "an attachment is not one of your files"},
        422: {"model": ErrorResponse, "description": "unknown persona"},
        503: {"model": ErrorResponse, "description": "the context service is not running"},
    },
)
async def preview_context(
    user: CurrentUser,
    pool: Pool,
    broker: Broker,
    persona: Annotated[str, Query(min_length=1, description="who would answer")],
    q: Annotated[StorableText, Query(min_length=1, description="the question")],
    attach: Annotated[list[str] | None, Query(description="file ids to attach")] = None,
) -> ContextBundle:
    """The context a question would load: sections by priority, tokens, references."""
    found = get_persona(persona)
    if found is None:
        raise HTTPException(
            422, f"Unknown persona {persona!r}: choose one of {', '.join(persona_names())}."
        )
    if len(q) > chat_settings().max_message_chars:
        raise HTTPException(
            422, f"q is longer than {chat_settings().max_message_chars} characters: shorten it."
        )
    attachments = [_file_id(value) for value in attach or []]
    if attachments:
        owned = await queries.owned_files(pool, user_id=user.id, file_ids=attachments)
        if len({row["id"] for row in owned}) != len(set(attachments)):
            raise HTTPException(404, FILE_NOT_FOUND)
    request = ContextRequest(
        user_id=user.id,
        persona=found.name,
        query=redact(q).text,  # it is embedded, maybe by a remote API, and may reach a trace
        attachments=list(dict.fromkeys(attachments)),
    )
    # no context service, or a failed build: a 503 saying so (errors.py)
    return await request_context(broker, request, timeout=PREVIEW_TIMEOUT_SECONDS)


def _file_id(value: str) -> UUID:
    """A malformed id names no file of yours: 404, like any other unknown id."""
    try:
        return UUID(value)
    except ValueError:
        raise HTTPException(404, FILE_NOT_FOUND) from None
