"""From an OpenAI request to Artisan's terms: which persona a `model` names, which message is the
question and which are its context, and the conversation the turn is stored in."""

import uuid
from uuid import UUID

import asyncpg

from services.gateway.openai_compat.errors import OpenAIHTTPError
from services.gateway.openai_compat.schemas import MODEL_PREFIX, ChatMessage
from shared.db import conversations
from shared.personas import Persona, get_persona, persona_names

# one conversation per user and persona holds the turns asked through the API: its id is derived
# from both, so it is found again without a column of its own (and made again if deleted)
API_CONVERSATIONS = uuid.UUID("5d3b0e7a-9c1f-4e62-8a4d-0f6b2c7e1a93")
API_CONVERSATION_TITLE = "From OpenAI-compatible clients"
CONTEXT_ROLES = frozenset({"user", "assistant"})
INSTRUCTION_ROLES = frozenset({"system", "developer"})


def model_id(persona_name: str) -> str:
    return MODEL_PREFIX + persona_name


def persona_for_model(model: str) -> Persona:
    """The persona `artisan-<name>` (or plain `<name>`) names; else a 404 listing the models."""
    persona = get_persona(model.removeprefix(MODEL_PREFIX))
    if persona is None:
        models = ", ".join(model_id(name) for name in persona_names())
        raise OpenAIHTTPError(
            404,
            f"The model {model!r} does not exist. Artisan's models are its personas: {models}"
            " (GET /v1/models lists them).",
            code="model_not_found",
            param="model",
        )
    return persona


def question_of(messages: list[ChatMessage]) -> int:
    """The index of the question: the last user message (400 without one)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    raise OpenAIHTTPError(
        400,
        "No user message: the last message with role 'user' is the question; send one.",
        code="invalid_value",
        param="messages",
    )


def caller_context(
    messages: list[ChatMessage], question: int, *, recent_turns: int, max_chars: int
) -> list[tuple[str, str]]:
    """What the caller said before the question (user and assistant messages: the last
    `recent_turns` turns are all P1 takes, and a turn has at most two messages) and its system
    and developer messages wherever they are, as (role, text), oldest first. Each is cut at
    `max_chars`: the question's own limit (P1 cuts a long turn to fit anyway)."""
    said = [
        index
        for index, message in enumerate(messages[:question])
        if message.role in CONTEXT_ROLES and message.text.strip()
    ]
    kept = set(said[-2 * recent_turns :] if recent_turns > 0 else [])
    return [
        (message.role, message.text[:max_chars])
        for index, message in enumerate(messages)
        if message.text.strip() and (index in kept or message.role in INSTRUCTION_ROLES)
    ]


async def api_conversation(pool: asyncpg.Pool, user_id: UUID, persona: str) -> UUID:
    """The conversation turns asked through the API with this persona are stored in.

    An OpenAI client keeps its own chats and sends each one whole; it names none of Artisan's
    conversations, so its turns go to one of their own, apart from the web client's."""
    return await conversations.ensure_conversation(
        pool,
        conversation_id=uuid.uuid5(API_CONVERSATIONS, f"{user_id}/{persona}"),
        user_id=user_id,
        persona=persona,
        title=API_CONVERSATION_TITLE,
    )
