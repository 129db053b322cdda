"""Conversations: their turns, journal, Markdown export and import."""
