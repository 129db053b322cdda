"""`create_document` (seed 004): the tool reads the attached file's stored text itself, writes a
meeting summary from it extractively, and stores it; the model only ever saw `[Attached: name]`.

Every item cites its passage the way answers do: a numbered citation (1…n in the order the
document shows them) naming the chunk and an exact quote of it.
"""

from typing import Any, Literal
from uuid import UUID

import asyncpg
from pydantic import BaseModel, ConfigDict, Field

from services.chat.tools.meeting import (
    NOT_STATED,
    SECTION_TITLES,
    SECTIONS,
    Item,
    MeetingSummary,
    Passage,
    meeting_date,
    summarise_meeting,
)
from shared.contracts import Citation
from shared.db import chunks, files
from shared.db.documents import NewDocument, insert_document

MAX_SOURCE_CHARS = 4_000_000  # ~1M tokens: files over 100k tokens work (seed 004), bounded
MAX_TITLE_CHARS = 200


class ToolError(Exception):
    """A call the model (or the user) can correct; the message says how."""


class CreateDocumentArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["meeting_summary"] = Field(description="the kind of document to make")
    title: str = Field(
        "", max_length=MAX_TITLE_CHARS, description="the document's title (default: from the file)"
    )
    file_id: UUID = Field(description="the id of an attached file, as listed with it")


async def create_document(
    pool: asyncpg.Pool,
    args: CreateDocumentArgs,
    *,
    user_id: UUID,
    turn_id: UUID | None,
    attached: list[UUID],
) -> str:
    """Read the attached file, summarise it, store the document; what was made, and its link."""
    if args.file_id not in attached:
        raise ToolError(
            f"file_id {args.file_id} is not attached to this message: use one of "
            f"{[str(a) for a in attached]}"
        )
    file, passages = await _read_file(pool, user_id, args.file_id)
    summary = summarise_meeting(passages)
    if not summary.items:
        raise ToolError(
            f"{file['filename']} holds no decisions, action items or open questions to summarise"
        )
    title = args.title.strip() or f"Meeting summary: {file['filename']}"
    items = document_items(summary, file_id=args.file_id, filename=file["filename"])
    body = render_markdown(title, file["filename"], meeting_date(passages), items)
    document = NewDocument(
        user_id=user_id,
        kind=args.kind,
        title=title,
        file_id=args.file_id,
        filename=file["filename"],
        turn_id=turn_id,
        body=body,
        items=items,
    )
    return described(await insert_document(pool, document), items)


async def _read_file(
    pool: asyncpg.Pool, user_id: UUID, file_id: UUID
) -> tuple[asyncpg.Record, list[Passage]]:
    """The file's row and its live chunks, only the user's own and only once it is ready."""
    file = await files.get_file(pool, user_id=user_id, file_id=file_id)
    if file is None:
        raise ToolError(f"no file {file_id} among your files")
    if file["live_version"] is None:
        raise ToolError(f"{file['filename']} is still being processed: try again when it is ready")
    rows = await chunks.list_chunks(pool, user_id=user_id, file_id=file_id)
    if sum(len(row["text"]) for row in rows) > MAX_SOURCE_CHARS:
        raise ToolError(
            f"{file['filename']} is over {MAX_SOURCE_CHARS:,} characters, more than one meeting "
            "summary can cover: split the transcript and attach the parts one at a time"
        )
    passages = [
        Passage(row["id"], row["text"], row["line_start"], row["char_start"]) for row in rows
    ]
    return file, passages


def document_items(
    summary: MeetingSummary, *, file_id: UUID, filename: str
) -> list[dict[str, Any]]:
    """Each item with its citation, numbered 1…n in document order."""
    return [
        {
            "section": item.section,
            "text": item.text,
            "owner": item.owner,
            "due": item.due,
            "citation": _citation(ref, item, file_id, filename).model_dump(mode="json"),
        }
        for ref, item in enumerate(summary.items, start=1)
    ]


def _citation(ref: int, item: Item, file_id: UUID, filename: str) -> Citation:
    return Citation(
        ref=ref,
        file_id=file_id,
        filename=filename,
        chunk_id=item.chunk_id,
        char_start=item.char_start,
        char_end=item.char_end,
        line_start=item.line,
        line_end=item.line,
        snippet=item.quote,
    )


def render_markdown(
    title: str, filename: str, held_on: str | None, items: list[dict[str, Any]]
) -> str:
    """The document as a person reads it: sections of items with [Ref: N], then the sources."""
    lines = [f"# {title}", "", f"From {filename}" + (f", meeting of {held_on}" if held_on else "")]
    for section in SECTIONS:
        chosen = [item for item in items if item["section"] == section]
        lines += ["", f"## {SECTION_TITLES[section]}", ""]
        lines += [_item_line(item) for item in chosen] or ["- None recorded."]
    lines += ["", "## Sources", ""]
    for item in items:
        cited = item["citation"]
        quote = " ".join(cited["snippet"].split())
        lines.append(f'{cited["ref"]}. {filename}, line {cited["line_start"]}: "{quote}"')
    return "\n".join(lines) + "\n"


def _item_line(item: dict[str, Any]) -> str:
    ref = item["citation"]["ref"]
    if item["section"] != "action_items":
        return f"- {item['text']} [Ref: {ref}]"
    owner, due = item["owner"] or NOT_STATED, item["due"] or NOT_STATED
    return f"- {item['text']} (owner: {owner}; due: {due}) [Ref: {ref}]"


def described(document: asyncpg.Record, items: list[dict[str, Any]]) -> str:
    """What the tool tells the model (and the offline answer says): what was made, and where."""
    found = ", ".join(
        f"{sum(i['section'] == s for i in items)} {SECTION_TITLES[s].lower()}" for s in SECTIONS
    )
    link = f"/v1/documents/{document['id']}/export"
    return (
        f'I made the meeting summary "{document["title"]}" from {document["filename"]}: '
        f"{found}, each of the {len(items)} items citing its passage. "
        f"[{document['title']}]({link})"
    )
