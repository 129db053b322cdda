"""Logical chunking by a chat model, as in seed 000.

Under `single_pass_limit` characters the text is one window; above it, windows of `window`
characters overlap by `overlap`. Each window gets call 1A (chunk) then call 1B (refine, seeing
the same window and 1A's chunks), and the windows run concurrently. The model's offsets are
advice: `chunk_merge` and `chunk_windows` turn them into chunks that tile the text exactly
once, in order.
"""

import asyncio
import logging

from opentelemetry import trace

from shared.domain import ChunkSpan
from shared.errors import ModelOutputError
from shared.prompts import load_prompt
from shared.providers.base import ChatModel
from shared.providers.llm.chunk_merge import merge_spans
from shared.providers.llm.chunk_windows import owned_spans, shifted, window_bounds
from shared.providers.llm.inputs import spans_json, window_note
from shared.providers.llm.schemas import ChunkingAnswer

ROLE = "chunk"
# a chunk's entry (offsets, title, summary) is ~60 tokens and a chunk a few hundred characters:
# a short text's chunk list is short, and a model that keeps adding chunks stops there
BUDGET_BASE_TOKENS, BUDGET_CHARS_PER_TOKEN, BUDGET_MAX_TOKENS = 200, 6, 3_000
WINDOW_CHARS = 20_000
OVERLAP_CHARS = 3_000
SINGLE_PASS_LIMIT = 15_000

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


class LLMChunker:
    def __init__(
        self,
        chat: ChatModel,
        window: int = WINDOW_CHARS,
        overlap: int = OVERLAP_CHARS,
        single_pass_limit: int = SINGLE_PASS_LIMIT,
    ) -> None:
        self.chat = chat
        self.window = window
        self.overlap = overlap
        self.single_pass_limit = single_pass_limit

    async def chunk(self, text: str) -> list[ChunkSpan]:
        """Spans in order, contiguous, covering text exactly: 0 .. len(text)."""
        if not text:
            return []
        if len(text) < self.single_pass_limit:
            bounds = [(0, len(text))]
        else:
            bounds = window_bounds(len(text), self.window, self.overlap)
        per_window = await asyncio.gather(
            *(
                self._chunk_window(text, index, len(bounds), start, end)
                for index, (start, end) in enumerate(bounds)
            )
        )
        # half the overlap: a chunk ending there is seen by the next window with context around it
        proposals = owned_spans(bounds, per_window, tail=self.overlap // 2)
        return merge_spans(text, proposals)

    async def _chunk_window(
        self, text: str, index: int, count: int, start: int, end: int
    ) -> list[ChunkSpan]:
        """Calls 1A and 1B on text[start:end]; absolute spans tiling the window."""
        part = text[start:end]
        note = window_note(index, count, start, end, len(text))
        with tracer.start_as_current_span(
            "chunk window", attributes={"window.index": index, "window.start": start}
        ):
            draft = merge_spans(part, await self._ask("chunk_1a", part, note))
            refined = await self._refine(part, note, draft, index)
        return shifted(refined, start)

    async def _refine(
        self, part: str, note: str, draft: list[ChunkSpan], index: int
    ) -> list[ChunkSpan]:
        """1B's chunking of the window; 1A's draft when 1B fails or returns nothing."""
        try:
            proposals = await self._ask("chunk_1b", part, note, chunks_json=spans_json(draft))
        except ModelOutputError as error:
            # 1B only polishes; a usable draft is worth more than failing the whole file
            logger.warning("chunk 1B failed for window %d, keeping 1A's chunks: %s", index, error)
            return draft
        return merge_spans(part, proposals) if proposals else draft

    async def _ask(self, prompt: str, part: str, note: str, **extra: str) -> list[ChunkSpan]:
        system, user = load_prompt(prompt).render(
            context_note=note, char_count=len(part), text=part, **extra
        )
        answer = await self.chat.complete_json(
            role=ROLE, system=system, user=user, schema=ChunkingAnswer, max_tokens=_budget(part)
        )
        return [
            ChunkSpan(chunk.start, chunk.end, chunk.title.strip(), chunk.summary.strip())
            for chunk in answer.chunks
        ]


def _budget(part: str) -> int:
    return min(BUDGET_MAX_TOKENS, BUDGET_BASE_TOKENS + len(part) // BUDGET_CHARS_PER_TOKEN)
