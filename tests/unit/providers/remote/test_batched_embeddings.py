"""A remote embeddings request made for several callers (messages of different users) is one
HTTP call, recorded once per caller with that caller's share of its tokens, in its own context."""

import asyncio
from collections.abc import Callable, Iterator, Sequence
from uuid import uuid4

import numpy as np
import pytest

from shared.config import ModelSettings
from shared.providers.batched_embedder import BatchedEmbedder
from shared.providers.remote import OpenAIEmbedder
from shared.usage import ModelCall, WorkContext, set_usage_sink, working_on
from tests.fakes.model_server import FakeModelServer

Recorded = list[tuple[ModelCall, WorkContext | None]]


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    rows: Recorded = []

    async def sink(calls: Sequence[tuple[ModelCall, WorkContext | None]]) -> None:
        rows.extend(calls)

    set_usage_sink(sink)
    yield rows
    set_usage_sink(None)


async def test_one_request_serves_three_users_and_each_records_its_share(
    server: FakeModelServer, make_settings: Callable[..., ModelSettings], recorded: Recorded
) -> None:
    remote = OpenAIEmbedder(make_settings())
    batched = BatchedEmbedder(remote)
    works = [WorkContext(user_id=uuid4(), file_id=uuid4()) for _ in range(3)]
    texts = [["a short note"], ["a longer note about the pricing decision"] * 2, ["x"]]

    async def embed_for(work: WorkContext, mine: list[str]) -> list[list[float]]:
        with working_on(work):
            return await batched.embed(mine)

    results = await asyncio.gather(*(embed_for(w, t) for w, t in zip(works, texts, strict=True)))

    assert len(server.embedding_requests) == 1
    assert [len(vectors) for vectors in results] == [1, 2, 1]
    shares = list(recorded)
    assert [work for _, work in shares] == works
    tokens = [call.prompt_tokens for call, _ in shares]
    assert tokens[1] > tokens[0] >= tokens[2]
    assert np.allclose(results[1], await remote.embed(texts[1]))
    await remote.embed([text for mine in texts for text in mine])  # the batch's texts, unshared
    assert abs(sum(tokens) - recorded[-1][0].prompt_tokens) <= 1  # rounding
