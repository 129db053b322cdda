"""A turn's tools, and its context with attached files as references only when a tool will read
them (seed 004: the prompt carries `[Attached: name]`, not the file)."""

from uuid import UUID

import asyncpg

from services.chat.tools.toolbox import CREATE_DOCUMENT, ChatToolBox
from shared.contracts import ChatRequest, ContextBundle
from shared.db import files
from shared.text.document_requests import asks_for_document

FILE_PASSAGE_KINDS = frozenset({"chunk", "file_summary", "section_summary"})


async def tools_for_turn(
    pool: asyncpg.Pool, request: ChatRequest, turn_id: UUID
) -> ChatToolBox | None:
    """The tools this turn offers (None: none), with the attached files the user owns."""
    attached = []
    for file_id in request.attachments:
        file = await files.get_file(pool, user_id=request.user_id, file_id=file_id)
        if file is not None:
            attached.append((file_id, str(file["filename"])))
    tools = ChatToolBox(pool, user_id=request.user_id, turn_id=turn_id, attachments=attached)
    return tools if tools.specs else None


def references_only(
    bundle: ContextBundle, tools: ChatToolBox | None, message: str
) -> ContextBundle:
    """The bundle without the attached files' passages and summaries when the message asks for a
    document of them: the tool reads the files; the model needs only their names."""
    if tools is None or CREATE_DOCUMENT not in tools.offered or not asks_for_document(message):
        return bundle
    attached = {file_id for file_id, _ in tools.attachments}
    dropped = {r.ref for r in bundle.references if r.file_id in attached}
    sections = []
    for section in bundle.sections:
        items = [
            item
            for item in section.items
            if not (item.kind in FILE_PASSAGE_KINDS and item.ref in dropped)
        ]
        tokens = sum(item.tokens for item in items)
        sections.append(section.model_copy(update={"items": items, "tokens": tokens}))
    return bundle.model_copy(
        update={
            "sections": sections,
            "references": [r for r in bundle.references if r.ref not in dropped],
            "total_tokens": sum(s.tokens for s in sections),
        }
    )
