"""Streamed chat completions (`stream=True`): text pieces as they arrive, usage at the end.

The usage chunk is asked for with `stream_options` (OpenAI, vLLM, Fireworks); an endpoint that
rejects the option is asked again without it, and its usage is then estimated offline.
Reasoning models' `<think>…</think>` blocks are dropped as they stream. With tools, a
completion that asks for tool calls is answered with their results and asked again, at most
MAX_TOOL_ROUNDS times; the last request offers no tools, so the model answers in words.
"""

import time
from collections.abc import AsyncIterator
from typing import Any

import openai

from shared.providers.remote.budgets import output_budget
from shared.providers.remote.errors import Endpoint, from_openai_error
from shared.providers.remote.limits import call_slots
from shared.providers.remote.structured import Dialect
from shared.providers.remote.tool_calls import MAX_TOOL_ROUNDS, RunTool, ToolCallCollector
from shared.text.tokens import count_tokens
from shared.usage import record_call

Message = dict[str, Any]
_OPEN, _CLOSE = "<think>", "</think>"


class ThinkFilter:
    """Drops `<think>…</think>` from text fed in pieces (tags may be split across pieces)."""

    def __init__(self) -> None:
        self._inside = False
        self._held = ""

    def feed(self, piece: str) -> str:
        text, out = self._held + piece, []
        self._held = ""
        while text:
            tag = _CLOSE if self._inside else _OPEN
            index = text.find(tag)
            if index >= 0:
                if not self._inside:
                    out.append(text[:index])
                text, self._inside = text[index + len(tag) :], not self._inside
                continue
            keep = _partial_tag_length(text, tag)
            if not self._inside:
                out.append(text[: len(text) - keep])
            self._held = text[len(text) - keep :] if keep else ""
            break
        return "".join(out)

    def flush(self) -> str:
        held, self._held = ("" if self._inside else self._held), ""
        return held


def _partial_tag_length(text: str, tag: str) -> int:
    """How many trailing characters of text could begin the tag."""
    for length in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-length:]):
            return length
    return 0


class TextStream:
    """One streamed completion; iterate once for its text; then the token counts hold."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        endpoint: Endpoint,
        *,
        provider: str,
        role: str,
        messages: list[Message],
        concurrency: int,
        temperature: float,
        dialect: Dialect,
        tools: list[dict[str, Any]] | None = None,
        run_tool: RunTool | None = None,
    ) -> None:
        self._client, self._endpoint, self._dialect = client, endpoint, dialect
        self._provider, self._role, self._messages = provider, role, list(messages)
        self._concurrency, self._temperature = concurrency, temperature
        self._tools, self._run_tool = tools, run_tool
        self._usage_option = True  # ask for the usage chunk until the endpoint refuses it
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.reported_usage = False  # the endpoint sent its own counts

    async def __aiter__(self) -> AsyncIterator[str]:
        async with call_slots("llm", self._concurrency):
            started, text, think = time.monotonic(), [], ThinkFilter()
            try:
                async for piece in self._pieces():
                    text.append(piece)
                    if visible := think.feed(piece):
                        yield visible
                if rest := think.flush():
                    yield rest
            except openai.APIError as exc:
                await self._record(started, "".join(text), "error")
                raise from_openai_error(exc, self._endpoint, self._role) from exc
            await self._record(started, "".join(text), "ok")

    async def _pieces(self) -> AsyncIterator[str]:
        """The text of each round; a round that asks for tool calls gets their results."""
        for round_number in range(MAX_TOOL_ROUNDS + 1):
            offer = bool(self._tools and self._run_tool) and round_number < MAX_TOOL_ROUNDS
            calls = ToolCallCollector()
            async for chunk in await self._open(offer):
                if chunk.usage is not None:  # each round's own counts: the turn pays for all
                    self.prompt_tokens += chunk.usage.prompt_tokens
                    self.completion_tokens += chunk.usage.completion_tokens
                    self.reported_usage = True
                for choice in chunk.choices:
                    if choice.delta and choice.delta.content:
                        yield choice.delta.content
                    if choice.delta and choice.delta.tool_calls:
                        calls.feed(choice.delta.tool_calls)
            if not calls or self._run_tool is None:
                return
            self._messages.append(calls.assistant_message())
            self._messages += await calls.results(self._run_tool)

    async def _open(self, offer_tools: bool) -> Any:
        while True:
            try:
                return await self._create(include_usage=self._usage_option, offer_tools=offer_tools)
            except openai.BadRequestError as exc:
                if self._usage_option and "stream_options" in str(exc):
                    self._usage_option = False
                elif not self._dialect.adapt(str(exc.message)):
                    raise

    async def _create(self, *, include_usage: bool, offer_tools: bool) -> Any:
        # the answer stops at its budget, whatever the model would write on
        options: dict[str, Any] = {self._dialect.budget_parameter: output_budget(self._role)}
        if include_usage:
            options["stream_options"] = {"include_usage": True}
        if offer_tools:
            options["tools"] = self._tools
        return await self._client.chat.completions.create(
            model=self._endpoint.model,
            messages=self._messages,  # type: ignore[arg-type]
            temperature=self._temperature,
            stream=True,
            **options,
        )

    async def _record(self, started: float, text: str, outcome: str) -> None:
        if not self.reported_usage:
            self.prompt_tokens = sum(count_tokens(str(m["content"] or "")) for m in self._messages)
            self.completion_tokens = count_tokens(text)
        await record_call(
            role=self._role,
            provider=self._provider,
            model=self._endpoint.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            started=started,
            outcome=outcome,
        )
