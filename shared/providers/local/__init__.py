"""Offline model providers: deterministic, fast, no downloads; the default when no key is set."""

from shared.providers.local.artisan_cut import LocalCompressor
from shared.providers.local.chunking import LocalChunker
from shared.providers.local.classify import LocalClassifier
from shared.providers.local.embed import LocalEmbedder

__all__ = ["LocalChunker", "LocalClassifier", "LocalCompressor", "LocalEmbedder"]
