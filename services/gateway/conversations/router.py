"""/v1/conversations: start, list and search, rename, delete and export your conversations.

A conversation has a persona; its turns are listed by GET /v1/turns?conversation_id=. P1 (the
last turns) comes from the conversation a question is asked in, while starred turns,
instructions, memory facts and the journal span all of them.
"""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response
from pydantic import AfterValidator, StringConstraints

from services.gateway.auth import CurrentUser
from services.gateway.conversations.export import conversation_markdown, export_filename
from services.gateway.conversations.lookup import conversation_id_of, owned_conversation
from services.gateway.conversations.schemas import (
    MAX_PERSONA_CHARS,
    ConversationChange,
    ConversationPage,
    ConversationRecord,
    NewConversation,
)
from services.gateway.deps import MAX_ID_CHARS, Pool
from services.gateway.errors import storable
from services.gateway.paging import Before
from services.gateway.schemas import ErrorResponse
from shared.db import conversations
from shared.db.conversations import UNTITLED
from shared.personas import get_persona, persona_names
from shared.secrets import redact

router = APIRouter(prefix="/v1/conversations", tags=["conversations"])

MAX_PAGE = 100
MAX_QUERY_CHARS = 200
_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}
_INVALID = {422: {"model": ErrorResponse, "description": "unknown persona, or an empty title"}}


async def parse_conversation_id(
    conversation_id: Annotated[str, Path(max_length=MAX_ID_CHARS)],
) -> UUID:
    return conversation_id_of(conversation_id)


ConversationId = Annotated[UUID, Depends(parse_conversation_id)]
SearchText = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS), AfterValidator(storable)
]


@router.post("", status_code=201, response_model=ConversationRecord, responses=_ERRORS | _INVALID)
async def create_conversation(
    body: NewConversation, user: CurrentUser, pool: Pool
) -> ConversationRecord:
    """Start a conversation with a persona; ask in it with POST /v1/chat {conversation_id}."""
    row = await conversations.create_conversation(
        pool, user_id=user.id, persona=_persona(body.persona), title=_title(body.title)
    )
    return ConversationRecord.from_row(row)


@router.get("", response_model=ConversationPage, responses=_ERRORS | _INVALID)
async def list_conversations(
    user: CurrentUser,
    pool: Pool,
    before: Before,
    q: Annotated[
        SearchText | None,
        Query(description="text its title holds, or words its turns hold (all of them)"),
    ] = None,
    persona: Annotated[
        str | None,
        Query(min_length=1, max_length=MAX_PERSONA_CHARS, description="only this persona's"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="conversations per page")] = 50,
) -> ConversationPage:
    """Your conversations, latest activity first; `q` searches titles and what was said."""
    page = await conversations.list_conversations(
        pool,
        user_id=user.id,
        query=q.strip() or None if q else None,
        persona=_persona(persona) if persona else None,
        limit=limit,
        before=before,
    )
    return ConversationPage(
        items=[ConversationRecord.from_row(row) for row in page.items], next=page.next
    )


@router.get("/{conversation_id}", response_model=ConversationRecord, responses=_ERRORS)
async def get_conversation(
    conversation_id: ConversationId, user: CurrentUser, pool: Pool
) -> ConversationRecord:
    return ConversationRecord.from_row(await owned_conversation(pool, user.id, conversation_id))


@router.patch("/{conversation_id}", response_model=ConversationRecord, responses=_ERRORS | _INVALID)
async def update_conversation(
    conversation_id: ConversationId, body: ConversationChange, user: CurrentUser, pool: Pool
) -> ConversationRecord:
    """Rename it, or hand it to another persona (its earlier turns keep theirs)."""
    if body.title is None and body.persona is None:
        raise HTTPException(422, "Nothing to change: send a title, a persona, or both.")
    row = await conversations.update_conversation(
        pool,
        user_id=user.id,
        conversation_id=conversation_id,
        title=_title(body.title),
        persona=_persona(body.persona) if body.persona is not None else None,
    )
    if row is None:
        await owned_conversation(pool, user.id, conversation_id)  # the 404
    return ConversationRecord.from_row(row)


@router.delete("/{conversation_id}", status_code=204, response_class=Response, responses=_ERRORS)
async def delete_conversation(
    conversation_id: ConversationId, user: CurrentUser, pool: Pool
) -> Response:
    """Delete it and its turns, with their journal entries and the facts learned from them."""
    if not await conversations.delete_conversation(
        pool, user_id=user.id, conversation_id=conversation_id
    ):
        await owned_conversation(pool, user.id, conversation_id)  # the 404
    return Response(status_code=204)


@router.get(
    "/{conversation_id}/export",
    response_class=Response,
    responses={
        **_ERRORS,
        200: {
            "content": {"text/markdown": {}},
            "description": "the conversation as Markdown, to save",
            "headers": {
                "Content-Disposition": {
                    "description": 'attachment; filename="<title>-<date>.md"',
                    "schema": {"type": "string"},
                }
            },
        },
    },
)
async def export_conversation(
    conversation_id: ConversationId, user: CurrentUser, pool: Pool
) -> Response:
    """The conversation as Markdown: each turn's persona, time, question and answer, and its
    sources as a numbered list."""
    row = await owned_conversation(pool, user.id, conversation_id)
    turns = await conversations.conversation_turns(
        pool, user_id=user.id, conversation_id=conversation_id
    )
    title = row["title"] or UNTITLED
    filename = export_filename(title, row["created_at"])
    return Response(
        conversation_markdown(row, title, turns),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _persona(name: str) -> str:
    found = get_persona(name)
    if found is None:
        raise HTTPException(
            422, f"Unknown persona {name!r}: choose one of {', '.join(persona_names())}."
        )
    return found.name


def _title(title: str | None) -> str | None:
    """A title on one line, secrets redacted (it is stored and shown); blank is refused."""
    if title is None:
        return None
    cleaned = " ".join(redact(title).text.split())
    if not cleaned:
        raise HTTPException(422, "title is empty: give the conversation a name.")
    return cleaned
