"""The tools an MCP client sees: search, ask, files, memory. Each is one or two REST calls made
with the caller's key, through `client_for` (a loopback client in the gateway, a client of the
discovered gateway URL in `artisan mcp`)."""

import base64
import binascii
from collections.abc import Callable
from typing import Annotated, Any, Literal
from urllib.parse import quote
from uuid import UUID

import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from shared.contracts import MAX_SEARCH_HITS
from shared.formats import media_type_for
from shared.mcp_server import rest
from shared.mcp_server.models import (
    Answer,
    Done,
    FileList,
    FileSummary,
    MemoryFact,
    MemoryFacts,
    Persona,
    PersonaList,
    SearchResults,
)

# a REST client authenticated as the caller of this tool call (the caller closes it)
ClientFor = Callable[[Context], httpx.AsyncClient]

INSTRUCTIONS = (
    "Artisan is the user's memory: their uploaded files, what they told their advisors"
    " (personas), and facts learned from it. Use search_files for passages, ask for a cited"
    " answer from a persona, and cite what you use by file name."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False)
MAX_WAIT_SECONDS = 300

Query = Annotated[str, Field(min_length=1, max_length=2000, description="what to look for")]
FileIdArg = Annotated[UUID, Field(description="a file's id, from list_files or upload_file")]
Before = Annotated[
    str | None, Field(max_length=200, description="the `next` of the previous page, for more")
]


class ArtisanTools:
    def __init__(self, client_for: ClientFor) -> None:
        self.client_for = client_for

    async def search_files(
        self,
        query: Query,
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_HITS, description="hits")] = 8,
    ) -> SearchResults:
        """Search the user's uploaded files: the best-matching passages, each with its file
        name, section title, line numbers and exact text."""
        async with self.client_for(ctx) as http:
            found = await rest.get_json(http, "/v1/search", q=query, limit=limit)
        return SearchResults(hits=found["items"])

    async def ask(
        self,
        question: Annotated[str, Field(min_length=1, max_length=20_000)],
        ctx: Context,
        persona: Annotated[str, Field(max_length=100, description="see list_personas")] = "gunnar",
        conversation_id: Annotated[
            UUID | None, Field(description="go on in this conversation (from an earlier ask)")
        ] = None,
        file_ids: Annotated[
            list[UUID] | None, Field(max_length=100, description="answer from these files only")
        ] = None,
    ) -> Answer:
        """Ask one of the user's advisors (a persona); it answers from the user's files, past
        conversations and memory, citing each source as [Ref: N]. Tell it something ("I am the
        CEO", "always answer briefly") and it remembers."""
        body: dict[str, Any] = {"persona": persona, "message": question}
        body["attachments"] = [str(file_id) for file_id in file_ids or ()]
        if conversation_id is not None:  # else the persona's latest conversation, as in the API
            body["conversation_id"] = str(conversation_id)
        async with self.client_for(ctx) as http:
            return Answer.model_validate(await rest.ask(http, body))

    async def list_personas(self, ctx: Context) -> PersonaList:
        """The advisors ask can talk to: name, role and what each is good for."""
        async with self.client_for(ctx) as http:
            found = await rest.get_json(http, "/v1/personas")
        return PersonaList(personas=[Persona.model_validate(p) for p in found["items"]])

    async def list_files(
        self,
        ctx: Context,
        status: Annotated[
            Literal["processing", "ready", "failed"] | None,
            Field(description="only files in this status"),
        ] = None,
        before: Before = None,
    ) -> FileList:
        """The user's files with their processing status (only ready files are searched),
        newest first, 100 at a time: `next` continues the list."""
        async with self.client_for(ctx) as http:
            found = await rest.get_json(http, "/v1/files", **_given(status=status, before=before))
        files = [FileSummary.from_record(record) for record in found["items"]]
        return FileList(files=files, next=found["next"])

    async def upload_file(
        self,
        name: Annotated[str, Field(min_length=1, max_length=255, description="e.g. notes.md")],
        ctx: Context,
        content_text: Annotated[str | None, Field(description="the text of a text file")] = None,
        content_base64: Annotated[
            str | None, Field(description="a binary file (PDF, DOCX, ...), base64-encoded")
        ] = None,
        wait_seconds: Annotated[
            int, Field(ge=0, le=MAX_WAIT_SECONDS, description="wait this long for it to be ready")
        ] = 60,
    ) -> FileSummary:
        """Upload a file to the user's memory; give its text or its bytes in base64. Waits
        until it is ready to search (or wait_seconds pass: then its status says how far it got)."""
        data = _content(content_text, content_base64)
        upload = [("files", (name, data, media_type_for(name)))]
        async with self.client_for(ctx) as http:
            [record] = (await rest.call(http, "POST", "/v1/files", files=upload)).json()["items"]
            settled = await rest.wait_until_settled(
                http, record, wait_seconds, on_progress=lambda r: _report(ctx, r)
            )
        return FileSummary.from_record({**settled, "duplicate": record.get("duplicate", False)})

    async def delete_file(self, file_id: FileIdArg, ctx: Context) -> Done:
        """Delete a file and everything made from it (its passages and their vectors)."""
        path = f"/v1/files/{quote(str(file_id), safe='')}"
        async with self.client_for(ctx) as http:
            record = await rest.get_json(http, path)  # for its name: an id alone says little
            await rest.call(http, "DELETE", path)
        return Done(done=f"deleted {record['filename']}")

    async def list_memory(self, ctx: Context, before: Before = None) -> MemoryFacts:
        """The facts Artisan has learned about the user and their company, with their ids,
        newest first, 100 at a time: `next` continues the list."""
        async with self.client_for(ctx) as http:
            found = await rest.get_json(http, "/v1/memory", **_given(before=before))
        facts = [MemoryFact.model_validate(fact) for fact in found["items"]]
        return MemoryFacts(facts=facts, next=found["next"])

    async def forget_memory_fact(
        self, fact_id: Annotated[UUID, Field(description="from list_memory")], ctx: Context
    ) -> Done:
        """Forget one memory fact: no answer uses it again."""
        async with self.client_for(ctx) as http:
            await rest.call(http, "DELETE", f"/v1/memory/{fact_id}")
        return Done(done=f"forgot memory fact {fact_id}")


def _given(**params: str | None) -> dict[str, str]:
    """The query parameters that have a value."""
    return {name: value for name, value in params.items() if value is not None}


def _content(text: str | None, encoded: str | None) -> bytes:
    if (text is None) == (encoded is None):
        raise ToolError("give the file's content as exactly one of content_text or content_base64")
    if text is not None:
        return text.encode()
    try:
        return base64.b64decode(encoded or "", validate=True)
    except binascii.Error:
        raise ToolError("content_base64 is not valid base64: encode the file's bytes") from None


async def _report(ctx: Context, record: dict[str, Any]) -> None:
    """A file's progress as MCP progress (a no-op unless the client asked for it)."""
    await ctx.report_progress(record["progress"], 100, record.get("progress_message") or None)


def build_server(client_for: ClientFor) -> MCPServer:
    """Artisan's MCP server; the transport (stdio, streamable HTTP) is the caller's choice."""
    server: MCPServer = MCPServer(
        "artisan", title="Artisan", instructions=INSTRUCTIONS, log_level="WARNING"
    )
    tools = ArtisanTools(client_for)
    for read_only in (tools.search_files, tools.list_personas, tools.list_files, tools.list_memory):
        server.add_tool(read_only, annotations=READ_ONLY)
    for destructive in (tools.delete_file, tools.forget_memory_fact):
        server.add_tool(destructive, annotations=DESTRUCTIVE)
    server.add_tool(tools.ask, annotations=ToolAnnotations(open_world_hint=False))
    server.add_tool(tools.upload_file, annotations=ToolAnnotations(open_world_hint=False))
    return server
