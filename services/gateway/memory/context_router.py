"""/v1/context/preview: what a question would load into the context, section by section."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, HTTPException, Query
from pydantic import AfterValidator, StringConstraints

from services.gateway.auth import ExpensiveUser
from services.gateway.conversations.lookup import conversation_for_question, conversation_id_of
from services.gateway.deps import FILE_NOT_FOUND, MAX_ID_CHARS, Broker, Pool
from services.gateway.errors import storable
from services.gateway.schemas import ErrorResponse
from shared.config import chat_settings
from shared.context_client import request_context
from shared.contracts import ContextBundle, ContextRequest
from shared.db import context as queries
from shared.personas import get_persona, persona_names
from shared.secrets import redact

router = APIRouter(tags=["context"])
PREVIEW_TIMEOUT_SECONDS = 10.0
MAX_ATTACHMENTS = 100
# a question travels in the URL: 10,000 characters fit the HTTP server's ~128 KB URL even
# percent-encoded; the configured message limit (ARTISAN_MAX_MESSAGE_CHARS) is checked below too
MAX_QUESTION_CHARS = 10_000
Question = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_QUESTION_CHARS), AfterValidator(storable)
]


@router.get(
    "/v1/context/preview",
    response_model=ContextBundle,
    responses={
        401: {"model": ErrorResponse},
        404: {
            "model": ErrorResponse,
            "description": "an attachment is not one of your files, or the conversation is not"
            " one of yours",
        },
        409: {"model": ErrorResponse, "description": "the conversation is with another persona"},
        422: {"model": ErrorResponse, "description": "unknown persona"},
        503: {"model": ErrorResponse, "description": "the context service is not running"},
    },
)
async def preview_context(
    user: ExpensiveUser,
    pool: Pool,
    broker: Broker,
    persona: Annotated[str, Query(min_length=1, max_length=100, description="who would answer")],
    q: Annotated[Question, Query(description="the question")],
    attach: Annotated[
        list[Annotated[str, StringConstraints(max_length=MAX_ID_CHARS)]] | None,
        Query(max_length=MAX_ATTACHMENTS, description="file ids to attach"),
    ] = None,
    conversation_id: Annotated[
        str | None,
        Query(
            max_length=MAX_ID_CHARS,
            description="the conversation asked in (P1 comes from it); without it, the"
            " persona's latest conversation",
        ),
    ] = None,
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
    conversation = await conversation_for_question(
        pool,
        user.id,
        found.name,
        conversation_id_of(conversation_id) if conversation_id is not None else None,
    )
    request = ContextRequest(
        user_id=user.id,
        persona=found.name,
        conversation_id=conversation,
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
