"""Offline model providers: deterministic, fast, no downloads; the default when no key is set."""

from shared.providers.local.chunking import LocalChunker
from shared.providers.local.classify import LocalClassifier
from shared.providers.local.compressor import LocalCompressor
from shared.providers.local.embed import LocalEmbedder
from shared.providers.local.minilm import MiniLMEmbedder
from shared.providers.local.summarise import LocalSummariser
from shared.providers.local.verify import LocalVerifier

__all__ = [
    "LocalChunker",
    "LocalClassifier",
    "LocalCompressor",
    "LocalEmbedder",
    "LocalSummariser",
    "LocalVerifier",
    "MiniLMEmbedder",
]
