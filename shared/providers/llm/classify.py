"""Classification by a chat model: files strategic, factual or mixed; chunks of mixed files."""

from shared.domain import ChunkType, FileType
from shared.prompts import load_prompt
from shared.providers.base import ChatModel
from shared.providers.llm.inputs import excerpt
from shared.providers.llm.schemas import ChunkClassification, FileClassification

ROLE = "classify"
# a sample this size (beginning, middle, end) shows a file's kind; the rest only costs tokens
CLASSIFY_MAX_CHARS = 24_000


class LLMClassifier:
    def __init__(self, chat: ChatModel, max_chars: int = CLASSIFY_MAX_CHARS) -> None:
        self.chat = chat
        self.max_chars = max_chars

    async def classify_file(self, text: str) -> FileType:
        system, user = load_prompt("classify").render(text=excerpt(text, self.max_chars))
        answer = await self.chat.complete_json(
            role=ROLE, system=system, user=user, schema=FileClassification
        )
        return answer.file_type

    async def classify_chunk(self, text: str) -> ChunkType:
        system, user = load_prompt("classify_chunk").render(text=excerpt(text, self.max_chars))
        answer = await self.chat.complete_json(
            role=ROLE, system=system, user=user, schema=ChunkClassification
        )
        return answer.chunk_type
