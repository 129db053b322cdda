"""The bodies the fake model server sends, in the wire formats of OpenAI's and Voyage's APIs."""

import base64
import json
from typing import Any

import numpy as np

from shared.text.tokens import count_tokens

EMBEDDING_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "voyage-3-lite": 512,
}
DEFAULT_EMBEDDING_DIMENSION = 1024  # voyage-3-large and most other Voyage models


def embeddings_body(payload: dict[str, Any]) -> dict[str, Any]:
    """Both formats: OpenAI's clients read usage.prompt_tokens, Voyage's usage.total_tokens;
    both ask for base64 float32 by default and decode it, and accept plain lists otherwise."""
    # the offline embedder makes the vectors deterministic and meaningful (search works);
    # imported here so chat-only uses of the fake load none of the local providers
    from shared.providers.local.embed import embed_texts

    texts = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
    model = str(payload.get("model") or "fake-embedding")
    dimension = (
        payload.get("output_dimension")  # Voyage
        or payload.get("dimensions")  # OpenAI
        or EMBEDDING_DIMENSIONS.get(model, DEFAULT_EMBEDDING_DIMENSION)
    )
    vectors = embed_texts(texts, int(dimension)).astype(np.float32)
    as_base64 = payload.get("encoding_format") == "base64"
    tokens = sum(count_tokens(text) for text in texts)
    return {
        "object": "list",
        "data": [
            {
                "object": "embedding",
                "embedding": encoded(row) if as_base64 else row.tolist(),
                "index": index,
            }
            for index, row in enumerate(vectors)
        ],
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def encoded(vector: np.ndarray) -> str:
    """The base64 wire form: little-endian float32 bytes, as both clients decode it."""
    return base64.b64encode(vector.astype("<f4").tobytes()).decode()


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    """OpenAI's clients read error.message, Voyage's client reads detail."""
    text = message or f"fake model server: scripted HTTP {status}"
    return {"error": {"message": text, "type": "fake_error", "code": status}, "detail": text}


def json_bytes(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def tool_call_entries(calls: list[dict[str, Any]], first_id: int) -> list[dict[str, Any]]:
    """`tool_calls` of an assistant message: each {"name", "arguments"} given, with an id."""
    return [
        {
            "id": f"call_fake_{first_id + index}",
            "type": "function",
            "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
        }
        for index, call in enumerate(calls)
    ]


def tool_call_deltas(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How a stream carries the calls: per call, one delta with its id and name, then its
    arguments in two pieces (clients must join the pieces by `index`)."""
    deltas = []
    for index, entry in enumerate(entries):
        arguments = entry["function"]["arguments"]
        half = len(arguments) // 2
        head = {"name": entry["function"]["name"], "arguments": ""}
        deltas.append({"index": index, "id": entry["id"], "type": "function", "function": head})
        for piece in (arguments[:half], arguments[half:]):
            deltas.append({"index": index, "function": {"arguments": piece}})
    return deltas
