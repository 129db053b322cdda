"""The gateway: REST + SSE for clients, API-key auth, upload limits (and, later, the web client)."""
