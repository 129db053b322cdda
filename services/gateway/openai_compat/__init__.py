"""The OpenAI-compatible chat API (/v1/chat/completions, /v1/models).

Its routes (router.py), schemas, message reading, replies and errors."""
