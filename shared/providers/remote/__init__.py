"""Remote model providers: any OpenAI-compatible chat endpoint, Voyage and OpenAI embeddings."""

from shared.providers.remote.chat import OpenAICompatibleChat
from shared.providers.remote.embeddings import OpenAIEmbedder, VoyageEmbedder
from shared.providers.remote.errors import ModelRequestRejectedError

__all__ = ["ModelRequestRejectedError", "OpenAICompatibleChat", "OpenAIEmbedder", "VoyageEmbedder"]
