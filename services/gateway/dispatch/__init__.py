"""Dispatch: stored work sent to the bus (outbox, dispatcher), its progress streamed back (SSE)."""
