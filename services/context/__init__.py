"""The context service: assembles the context of a chat turn (seed 002)."""
