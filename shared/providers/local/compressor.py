"""Offline Artisan Cut (call 2A) for strategic chunks and conversation turns."""

from shared.domain import ArtisanCut, TurnCut
from shared.providers.cpu import run_sized
from shared.providers.local.artisan_cut import artisan_cut
from shared.providers.local.turns import turn_cut


class LocalCompressor:
    """Offline Artisan Cut: extractive and deterministic."""

    async def compress(self, text: str, title: str) -> ArtisanCut:
        return await run_sized(len(text), artisan_cut, text, title)

    async def compress_turn(self, user_message: str, ai_response: str, persona: str) -> TurnCut:
        return await run_sized(
            len(user_message) + len(ai_response), turn_cut, user_message, ai_response, persona
        )
