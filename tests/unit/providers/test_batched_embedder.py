"""Embeddings asked for at about the same time share one forward pass: each caller gets exactly
its own vectors, a text the model refuses fails only its caller, input types never mix."""

import asyncio
from typing import Literal

import numpy as np
import pytest
from prometheus_client import REGISTRY

from shared.providers.batched_embedder import BatchedEmbedder
from shared.providers.local import LocalEmbedder

TEXTS = [[f"note {i}: the pricing decision", f"owner {i} by Friday"] for i in range(12)]


class CountingEmbedder:
    """The offline embedder, counting the calls (forward passes) it is asked for."""

    def __init__(self, refuse: str | None = None) -> None:
        self._inner = LocalEmbedder(dimension=64)
        self.model, self.dimension = self._inner.model, self._inner.dimension
        self.calls: list[tuple[int, str]] = []
        self._refuse = refuse

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]:
        self.calls.append((len(texts), input_type))
        await asyncio.sleep(0.01)  # a forward pass takes time: later callers queue behind it
        if self._refuse is not None and self._refuse in texts:
            raise ValueError(f"the model refuses {self._refuse!r}")
        return await self._inner.embed(texts, input_type)


async def _alone(texts: list[str], input_type: Literal["document", "query"] = "document") -> list:
    return await LocalEmbedder(dimension=64).embed(texts, input_type)


def _batches_of(callers: int) -> float:
    return (
        REGISTRY.get_sample_value(
            "artisan_embedding_batch_callers_bucket", {"le": str(float(callers))}
        )
        or 0.0
    )


async def test_concurrent_callers_share_one_call_and_each_gets_its_own_vectors() -> None:
    inner = CountingEmbedder()
    batched = BatchedEmbedder(inner)
    up_to_8, up_to_16 = _batches_of(8), _batches_of(16)
    results = await asyncio.gather(*(batched.embed(texts) for texts in TEXTS))
    assert inner.calls == [(24, "document")]
    assert (_batches_of(8), _batches_of(16)) == (up_to_8, up_to_16 + 1)  # /metrics shows it
    for texts, vectors in zip(TEXTS, results, strict=True):
        assert np.allclose(vectors, await _alone(texts))


async def test_a_caller_arriving_during_a_pass_goes_in_the_next_with_the_others() -> None:
    inner = CountingEmbedder()
    batched = BatchedEmbedder(inner)
    first = asyncio.create_task(batched.embed(TEXTS[0]))
    await asyncio.sleep(0.001)  # the first pass has started
    later = await asyncio.gather(*(batched.embed(texts) for texts in TEXTS[1:]))
    await first
    assert inner.calls == [(2, "document"), (22, "document")]
    assert np.allclose(later[-1], await _alone(TEXTS[-1]))


async def test_a_batch_closes_at_its_character_budget() -> None:
    inner = CountingEmbedder()
    per_caller = sum(len(text) for text in TEXTS[0])
    batched = BatchedEmbedder(inner, batch_chars=per_caller * 5)
    await asyncio.gather(*(batched.embed(texts) for texts in TEXTS))
    assert [size for size, _ in inner.calls] == [10, 10, 4]


async def test_queries_and_documents_go_in_separate_calls() -> None:
    inner = CountingEmbedder()
    batched = BatchedEmbedder(inner)
    kinds: list[Literal["document", "query"]] = ["document", "query"] * 3
    results = await asyncio.gather(*(batched.embed(TEXTS[i], kind) for i, kind in enumerate(kinds)))
    assert sorted(inner.calls) == [(6, "document"), (6, "query")]
    assert np.allclose(results[1], await _alone(TEXTS[1], "query"))


async def test_a_refused_text_fails_only_the_caller_that_sent_it() -> None:
    inner = CountingEmbedder(refuse=TEXTS[3][1])
    batched = BatchedEmbedder(inner)
    results = await asyncio.gather(
        *(batched.embed(texts) for texts in TEXTS[:6]), return_exceptions=True
    )
    assert isinstance(results[3], ValueError)
    for texts, vectors in zip(TEXTS[:6], results, strict=True):
        if texts is not TEXTS[3]:
            assert np.allclose(vectors, await _alone(texts))
    # the shared call, then each caller alone
    assert [size for size, _ in inner.calls] == [12, 2, 2, 2, 2, 2, 2]


async def test_a_cancelled_caller_leaves_the_others_their_vectors() -> None:
    inner = CountingEmbedder()
    batched = BatchedEmbedder(inner)
    tasks = [asyncio.create_task(batched.embed(texts)) for texts in TEXTS[:4]]
    await asyncio.sleep(0)
    tasks[1].cancel()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(done[1], asyncio.CancelledError)
    assert np.allclose(done[2], await _alone(TEXTS[2]))


def test_it_keeps_working_when_the_event_loop_changes() -> None:
    batched = BatchedEmbedder(CountingEmbedder())

    async def stranded() -> None:  # its loop ends while a caller still waits
        asyncio.get_running_loop().create_task(batched.embed(TEXTS[0]))
        await asyncio.sleep(0)

    asyncio.run(stranded())
    vectors = asyncio.run(asyncio.wait_for(batched.embed(TEXTS[1]), timeout=5))
    assert len(vectors) == 2


@pytest.mark.parametrize("texts", [[], [""]])
async def test_nothing_or_an_empty_text_is_answered_like_the_model_alone(texts: list[str]) -> None:
    assert await BatchedEmbedder(CountingEmbedder()).embed(texts) == await _alone(texts)
