"""A file record as the gateway returns it, and the CLI's httpx clients routed to a fake."""

import functools
from typing import Any

import httpx
import pytest


def record(file_id: str, name: str, **overrides: Any) -> dict[str, Any]:
    return {
        "id": file_id,
        "filename": name,
        "media_type": "text/markdown",
        "size": 4,
        "file_type": None,
        "status": "processing",
        "processing_stage": "uploaded",
        "progress": 10,
        "total_chunks": 0,
        "processed_chunks": 0,
        "error_message": None,
        "duplicate": False,
        **overrides,
    }


def fake_http(monkeypatch: pytest.MonkeyPatch, gateway: Any) -> None:
    """Route the command's own httpx clients to the fake gateway."""
    transport = httpx.MockTransport(gateway)
    monkeypatch.setattr(httpx, "Client", functools.partial(httpx.Client, transport=transport))
    monkeypatch.setattr(
        httpx, "AsyncClient", functools.partial(httpx.AsyncClient, transport=transport)
    )
