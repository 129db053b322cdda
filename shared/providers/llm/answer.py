"""Chat call 1A (a persona's streamed answer from the context) and 1B (its check) by a chat model.

1A streams plain text; 1B answers JSON. Whatever the model says, code enforces the contract:
a refusal is recognised, and a sentence citing a ref the bundle does not have is removed.
"""

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from shared.domain import REFUSAL, ContextBundle, Usage
from shared.prompts import load_prompt
from shared.providers.base import AnswerInput, ChatModel, CheckedAnswer, ToolBox
from shared.text.answer_types import could_answer
from shared.text.citations import cited_refs, drop_claims

ANSWER_ROLE, CHECK_ROLE = "answer", "check"
INSTRUCTION_SECTIONS = frozenset({"instructions"})  # P3: applied, not cited (facts are sources)
NO_INSTRUCTIONS = "(none)"


class TextStream(Protocol):
    prompt_tokens: int
    completion_tokens: int

    def __aiter__(self) -> AsyncIterator[str]: ...


class StreamingChatModel(ChatModel, Protocol):
    def stream_text(
        self,
        *,
        role: str,
        system: str,
        user: str,
        tools: list[dict[str, Any]] | None = None,
        run_tool: Callable[[str, str], Awaitable[str]] | None = None,
    ) -> TextStream: ...


class CheckVerdict(BaseModel):
    answer: str = Field(description="the answer with unsupported sentences removed")
    removed: list[str] = Field(default_factory=list, description="the sentences removed")


def render_instructions(bundle: ContextBundle) -> str:
    lines = [
        f"- {item.text.strip()}"
        for section in bundle.sections
        if section.name in INSTRUCTION_SECTIONS
        for item in section.items
    ]
    return "\n".join(lines) or NO_INSTRUCTIONS


def render_context(bundle: ContextBundle) -> str:
    """Every other section, by priority; citable items as `<source ref="N">` blocks."""
    parts = []
    for section in bundle.sections:
        if section.name in INSTRUCTION_SECTIONS or not section.items:
            continue
        parts.append(f"## {section.name} ({section.priority})")
        for item in section.items:
            text = item.text.strip()
            parts.append(f'<source ref="{item.ref}">\n{text}\n</source>' if item.ref else text)
    return "\n\n".join(parts) or "(nothing: no file, turn or journal entry matches)"


def with_tools(system: str, tools: ToolBox) -> str:
    """Call 1A's system message and what the tools are for, with the attached files' ids (the
    `[Attached: name]` references of the context carry no id to call a tool with)."""
    attached = "\n".join(
        f"- [Attached: {name}] file_id: {file_id}" for file_id, name in tools.attachments
    )
    guide, files = load_prompt("chat_tools").render(attachments=attached or "(none)")
    return f"{system}\n\n{guide}\n\n{files}"


def render_sources(passages: dict[int, str], refs: list[int]) -> str:
    return "\n\n".join(
        f'<source ref="{ref}">\n{passages[ref].strip()}\n</source>'
        for ref in refs
        if ref in passages
    )


class LLMAnswerStream:
    def __init__(self, chat: StreamingChatModel, request: AnswerInput) -> None:
        self._chat, self._request = chat, request
        self.usage = Usage(model=chat.model)
        self.refused = False

    async def __aiter__(self) -> AsyncIterator[str]:
        persona, bundle = self._request.persona, self._request.bundle
        system, user = load_prompt("chat_1a").render(
            persona_name=persona.display_name,
            persona_role=persona.role,
            persona_profile=persona.profile,
            persona_voice=persona.voice,
            instructions=render_instructions(bundle),
            context=render_context(bundle),
            question=self._request.question,
        )
        tools = self._request.tools
        if tools is None:
            stream = self._chat.stream_text(role=ANSWER_ROLE, system=system, user=user)
        else:
            system = with_tools(system, tools)
            stream = self._chat.stream_text(
                role=ANSWER_ROLE, system=system, user=user, tools=tools.specs, run_tool=tools.call
            )
        text = []
        async for piece in stream:
            text.append(piece)
            yield piece
        answer = "".join(text).strip()
        self.refused = not cited_refs(answer) and REFUSAL.lower()[:30] in answer.lower()
        self.usage = Usage(
            model=self._chat.model,
            prompt_tokens=stream.prompt_tokens,
            completion_tokens=stream.completion_tokens,
        )


class LLMAnswerer:
    def __init__(self, chat: StreamingChatModel) -> None:
        self.chat = chat
        self.model = chat.model

    def stream_answer(self, request: AnswerInput) -> LLMAnswerStream:
        return LLMAnswerStream(self.chat, request)


class LLMAnswerChecker:
    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    async def check_answer(self, request: AnswerInput, answer: str) -> CheckedAnswer:
        refs = cited_refs(answer)
        if not refs:
            return CheckedAnswer(answer=answer)  # nothing claimed from a source: nothing to check
        system, user = load_prompt("chat_1b").render(
            sources=render_sources(request.passages, refs), answer=answer
        )
        verdict = await self.chat.complete_json(
            role=CHECK_ROLE, system=system, user=user, schema=CheckVerdict
        )
        # a model may keep a citation to a ref it was never given, or to a passage that could
        # not answer the question (another person's, no date for a "when"): code removes those
        evidence = {
            ref for ref in refs
            if ref in request.passages and could_answer(request.question, request.passages[ref])
        }  # fmt: skip
        kept, unfounded = drop_claims(verdict.answer, lambda claim: set(claim.refs) <= evidence)
        return CheckedAnswer(answer=kept, removed=[*verdict.removed, *unfounded])
