"""Chooses the implementation of each model role from settings (only the local kind so far)."""

from functools import lru_cache

from shared.config import model_settings
from shared.providers.base import Chunker, Classifier, Compressor, Embedder


@lru_cache
def classifier() -> Classifier:
    from shared.providers.local import LocalClassifier

    return LocalClassifier()


@lru_cache
def chunker() -> Chunker:
    from shared.providers.local import LocalChunker

    return LocalChunker(target_words=model_settings().target_chunk_words)


@lru_cache
def compressor() -> Compressor:
    from shared.providers.local import LocalCompressor

    return LocalCompressor()


@lru_cache
def embedder() -> Embedder:
    from shared.providers.local import LocalEmbedder

    return LocalEmbedder(dimension=model_settings().local_embed_dim)
