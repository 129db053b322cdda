"""The embedder service."""
