"""Voyage and OpenAI embedders with the real voyageai and openai clients against the fake server."""

import time
from collections.abc import Callable

import numpy as np
import pytest

from shared.config import ModelSettings
from shared.errors import ModelUnavailableError, PermanentError
from shared.providers.remote import ModelRequestRejectedError, OpenAIEmbedder, VoyageEmbedder
from shared.usage import ModelCall
from tests.fakes.model_server import FakeModelServer

Settings = Callable[..., ModelSettings]
TEXTS = [f"note {i}: the {word} decision" for i, word in enumerate(["pricing", "hiring"] * 150)]


def _unit_and_distinct(vectors: list[list[float]]) -> bool:
    matrix = np.array(vectors)
    return bool(np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)) and len(
        {tuple(np.round(row, 5)) for row in matrix}
    ) == len(matrix)


async def _assert_in_input_order(
    embedder: VoyageEmbedder | OpenAIEmbedder, vectors: list[list[float]]
) -> None:
    """Texts from each batch, embedded again in one request, get the same vectors."""
    picks = [0, 127, 128, 255, 256, 299]
    again = await embedder.embed([TEXTS[i] for i in picks])
    assert np.allclose([vectors[i] for i in picks], again)


async def test_voyage_returns_1024_d_vectors_in_input_order_in_batches_of_128(
    server: FakeModelServer, make_settings: Settings
) -> None:
    embedder = VoyageEmbedder(make_settings())
    vectors = await embedder.embed(TEXTS, input_type="document")

    assert (embedder.dimension, embedder.model) == (1024, "voyage-3-large")
    assert len(vectors) == 300 and all(len(vector) == 1024 for vector in vectors)
    assert _unit_and_distinct(vectors)
    requests = server.embedding_requests
    assert sorted(len(r.json["input"]) for r in requests) == [44, 128, 128]
    assert {r.json["model"] for r in requests} == {"voyage-3-large"}
    assert sorted(text for r in requests for text in r.json["input"]) == sorted(TEXTS)
    await _assert_in_input_order(embedder, vectors)


async def test_voyage_passes_the_input_type_through(
    server: FakeModelServer, make_settings: Settings
) -> None:
    embedder = VoyageEmbedder(make_settings())
    await embedder.embed(["what did we decide on pricing?"], input_type="query")
    await embedder.embed(["We decided on three tiers."])
    assert [r.json["input_type"] for r in server.embedding_requests] == ["query", "document"]
    assert server.embedding_requests[0].headers["authorization"] == "Bearer test-key"


async def test_openai_returns_1536_d_vectors_in_input_order_in_batches(
    server: FakeModelServer, make_settings: Settings
) -> None:
    embedder = OpenAIEmbedder(make_settings())
    vectors = await embedder.embed(TEXTS)

    assert embedder.dimension == 1536
    assert len(vectors) == 300 and all(len(vector) == 1536 for vector in vectors)
    assert _unit_and_distinct(vectors)
    assert sorted(len(r.json["input"]) for r in server.embedding_requests) == [44, 128, 128]
    await _assert_in_input_order(embedder, vectors)


async def test_batches_also_respect_the_request_token_budget(
    server: FakeModelServer, make_settings: Settings
) -> None:
    long_texts = ["word " * 20_000] * 8  # ~20K estimated tokens each; Voyage allows 120K a call
    await VoyageEmbedder(make_settings()).embed(long_texts)
    sizes = [len(r.json["input"]) for r in server.embedding_requests]
    assert sum(sizes) == 8 and max(sizes) < 8


async def test_empty_texts_are_sent_as_a_space(
    server: FakeModelServer, make_settings: Settings
) -> None:
    vectors = await OpenAIEmbedder(make_settings()).embed(["", "text"])
    assert len(vectors) == 2
    assert server.embedding_requests[0].json["input"] == [" ", "text"]


async def test_usage_is_recorded_per_request_with_the_embed_role(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    await VoyageEmbedder(make_settings()).embed(TEXTS[:200])
    await OpenAIEmbedder(make_settings()).embed(TEXTS[:10])

    assert [(c.role, c.provider, c.model) for c in usage_calls] == [
        ("embed", "voyage", "voyage-3-large"),
        ("embed", "voyage", "voyage-3-large"),
        ("embed", "openai", "text-embedding-3-small"),
    ]
    assert all(c.prompt_tokens > 0 and c.completion_tokens == 0 for c in usage_calls)


async def test_voyage_waits_out_a_429_with_retry_after(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.fail_with(429, headers={"Retry-After": "1"})
    vectors = await VoyageEmbedder(make_settings()).embed(["retry me"])

    assert len(vectors) == 1
    first, second = server.embedding_requests
    assert second.received - first.received >= 0.9
    assert [call.outcome for call in usage_calls] == ["error", "ok"]  # every HTTP call


async def test_voyage_retries_a_500_then_gives_up_clearly(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.fail_with(500, headers={"retry-after-ms": "20"}, times=2)
    with pytest.raises(ModelUnavailableError) as failure:
        await VoyageEmbedder(make_settings(llm_max_retries=1)).embed(["x"])
    assert len(server.embedding_requests) == 2
    assert server.base_url in str(failure.value) and "after 2 attempts" in str(failure.value)


async def test_voyage_timeouts_are_retried_then_unavailable(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.delay(0.5, times=2)
    embedder = VoyageEmbedder(make_settings(llm_timeout_seconds=0.2, llm_max_retries=1))
    with pytest.raises(ModelUnavailableError, match=r"no answer within 0\.2 s"):
        await embedder.embed(["slow"])
    assert len(server.embedding_requests) == 2


async def test_a_rejected_voyage_key_names_the_setting(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.fail_with(401, body={"detail": "Provided API key is invalid."})
    with pytest.raises(ModelRequestRejectedError, match=r"ARTISAN_VOYAGE_API_KEY"):
        await VoyageEmbedder(make_settings()).embed(["x"])
    assert len(server.embedding_requests) == 1


async def test_openai_embeddings_waits_out_a_429(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.fail_with(429, headers={"retry-after-ms": "300"})
    started = time.monotonic()
    assert len(await OpenAIEmbedder(make_settings()).embed(["x"])) == 1
    assert time.monotonic() - started >= 0.25
    assert len(server.embedding_requests) == 2


async def test_a_wrong_dimension_from_the_endpoint_fails_permanently(
    server: FakeModelServer, make_settings: Settings
) -> None:
    embedder = OpenAIEmbedder(make_settings(), dimension=768)
    with pytest.raises(PermanentError, match="expected dimension 768"):
        await embedder.embed(["x"])


def test_models_voyageai_would_download_are_refused(make_settings: Settings) -> None:
    with pytest.raises(PermanentError, match="downloaded weights"):
        VoyageEmbedder(make_settings(voyage_model="voyage-4-nano"))


def test_an_openai_model_of_unknown_dimension_is_refused(make_settings: Settings) -> None:
    with pytest.raises(PermanentError, match="ARTISAN_OPENAI_EMBED_MODEL"):
        OpenAIEmbedder(make_settings(openai_embed_model="nomic-embed-text"))
    assert OpenAIEmbedder(make_settings(openai_embed_model="nomic"), dimension=768).dimension == 768
