"""Summaries by a chat model (seed 003): one per section, one per file built from those."""

from collections.abc import Sequence

from shared.prompts import load_prompt
from shared.providers.base import ChatModel
from shared.providers.llm.inputs import excerpt, sections_text
from shared.providers.llm.normalise import shorten
from shared.providers.llm.schemas import SummaryAnswer

ROLE = "summarise"
SECTION_MAX_CHARS = 24_000
SECTIONS_MAX_CHARS = 60_000  # a file of hundreds of sections is summarised from a sample
_FALLBACK_CHARS = 400


class LLMSummariser:
    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    async def summarise_section(self, text: str, title: str) -> str:
        system, user = load_prompt("summarise_section").render(
            title=title, text=excerpt(text, SECTION_MAX_CHARS)
        )
        summary = await self._summary(system, user)
        # an empty answer still leaves the section described by its opening
        return summary or shorten(text, _FALLBACK_CHARS)

    async def summarise_file(
        self, filename: str, sections: Sequence[tuple[str, str]], texts: Sequence[str] = ()
    ) -> str:
        # the model reads the section summaries: the whole texts would overrun its input budget
        listing = excerpt(sections_text(sections), SECTIONS_MAX_CHARS)
        system, user = load_prompt("summarise_file").render(filename=filename, sections=listing)
        summary = await self._summary(system, user)
        return summary or shorten("; ".join(title for title, _ in sections), _FALLBACK_CHARS)

    async def _summary(self, system: str, user: str) -> str:
        answer = await self.chat.complete_json(
            role=ROLE, system=system, user=user, schema=SummaryAnswer
        )
        return answer.summary.strip()
