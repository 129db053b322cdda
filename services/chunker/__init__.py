"""The chunker service."""
