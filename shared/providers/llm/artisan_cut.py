"""Artisan Cut by a chat model: call 2A compresses, call 2B verifies against the source."""

from collections.abc import Iterator
from contextlib import contextmanager

from shared.domain import ArtisanCut, TurnCut
from shared.errors import ModelFailure
from shared.prompts import load_prompt
from shared.providers.base import ChatModel
from shared.providers.llm.inputs import cut_json
from shared.providers.llm.normalise import to_artisan_cut, to_turn_cut
from shared.providers.llm.schemas import CutAnswer, TurnCutAnswer


@contextmanager
def _naming(chat: ChatModel, role: str) -> Iterator[None]:
    """A cut the model left empty is refused by normalisation, which knows neither the model nor
    the call; the file's failure names both, as for the chat model's own errors."""
    try:
        yield
    except ModelFailure as exc:
        exc.named(chat.model, role)
        raise


class LLMCompressor:
    """Call 2A for strategic chunks and for conversation turns."""

    role = "compress"

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    async def compress(self, text: str, title: str) -> ArtisanCut:
        system, user = load_prompt("artisan_cut_2a").render(title=title, text=text)
        answer = await self.chat.complete_json(
            role=self.role, system=system, user=user, schema=CutAnswer
        )
        with _naming(self.chat, self.role):
            return to_artisan_cut(answer, title=title, text=text)

    async def compress_turn(self, user_message: str, ai_response: str, persona: str) -> TurnCut:
        system, user = load_prompt("turn_cut_2a").render(
            persona=persona, user_message=user_message, ai_response=ai_response
        )
        answer = await self.chat.complete_json(
            role=self.role, system=system, user=user, schema=TurnCutAnswer
        )
        with _naming(self.chat, self.role):
            return to_turn_cut(
                answer, persona=persona, user_message=user_message, ai_response=ai_response
            )


class LLMVerifier:
    """Call 2B: the cut checked against its source and corrected."""

    role = "verify"

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    async def verify(self, text: str, title: str, cut: ArtisanCut) -> ArtisanCut:
        system, user = load_prompt("artisan_cut_2b").render(
            title=title, text=text, cut_json=cut_json(cut)
        )
        answer = await self.chat.complete_json(
            role=self.role, system=system, user=user, schema=CutAnswer
        )
        with _naming(self.chat, self.role):
            return to_artisan_cut(answer, title=title, text=text)

    async def verify_turn(
        self, user_message: str, ai_response: str, persona: str, cut: TurnCut
    ) -> TurnCut:
        system, user = load_prompt("turn_cut_2b").render(
            persona=persona,
            user_message=user_message,
            ai_response=ai_response,
            cut_json=cut_json(cut),
        )
        answer = await self.chat.complete_json(
            role=self.role, system=system, user=user, schema=TurnCutAnswer
        )
        with _naming(self.chat, self.role):
            return to_turn_cut(
                answer, persona=persona, user_message=user_message, ai_response=ai_response
            )
