"""Embeddings in batches across messages: what several callers ask for at about the same time
goes to the model in one forward pass (MiniLM) or one request (Voyage, OpenAI).

Dynamic batching as Text Embeddings Inference does it, without a wait: a call that finds the
model idle is sent at once, alone; the calls that arrive while it runs wait for it and then go
together, up to a size budget. One message alone is as fast as before; under load, batches grow
by themselves. Each caller still gets only its own vectors, so its message is stored and acked
on its own and a retry stays exact. A batch that fails is sent again call by call, so a text the
model refuses fails only the message that carried it.

A remote model's call is recorded once per HTTP request; a request made for several callers is
recorded in each caller's work context with its share of the tokens and cost (shared.usage).
"""

import asyncio
import contextvars
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from shared.metrics.models import observe_embedding_batch
from shared.providers.base import Embedder
from shared.usage import ModelCall, calls_captured, record_share

InputType = Literal["document", "query"]
# characters in one batch (about 12,000 word pieces): past it, a batch closes and the rest wait
# for the next; one call larger than this still goes alone, whole
BATCH_CHARS = 48_000


@dataclass
class _Call:
    texts: list[str]
    input_type: InputType
    done: asyncio.Future[list[list[float]]]
    # the model calls made for it (each with this call's share): recorded by its caller
    calls: list[tuple[list[ModelCall], float]] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(len(text) for text in self.texts)


class BatchedEmbedder:
    """An embedder whose concurrent calls share forward passes; same model, same vectors."""

    def __init__(self, inner: Embedder, *, batch_chars: int = BATCH_CHARS) -> None:
        self._inner, self._batch_chars = inner, batch_chars
        self.model, self.dimension = inner.model, inner.dimension
        self._waiting: deque[_Call] = deque()
        self._sender: asyncio.Task[None] | None = None

    async def embed(
        self, texts: list[str], input_type: InputType = "document"
    ) -> list[list[float]]:
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        if self._sender is not None and self._sender.get_loop() is not loop:
            self._waiting, self._sender = deque(), None  # an earlier event loop's, now gone
        call = _Call(list(texts), input_type, loop.create_future())
        self._waiting.append(call)
        if self._sender is None or self._sender.done():
            # a context of its own: the batch serves several callers' work, none of them alone
            self._sender = asyncio.create_task(self._send_waiting(), context=contextvars.Context())
        try:
            return await call.done
        finally:
            for calls, share in call.calls:
                await record_share(calls, share)

    async def _send_waiting(self) -> None:
        while self._waiting:
            batch = self._next_batch()
            try:
                await self._send(batch)
            except BaseException as exc:  # never leave a caller waiting on a sender that died
                for call in [*batch, *self._waiting]:
                    _fail(call, exc)
                self._waiting.clear()
                raise

    def _next_batch(self) -> list[_Call]:
        """The oldest waiting call and those after it of the same input type, within budget."""
        first = self._waiting.popleft()
        batch, size, kept = [first], first.chars, deque[_Call]()
        while self._waiting:
            call = self._waiting.popleft()
            if call.input_type != first.input_type or size + call.chars > self._batch_chars:
                kept.append(call)
                continue
            batch.append(call)
            size += call.chars
        self._waiting.extendleft(reversed(kept))
        return batch

    async def _send(self, batch: list[_Call]) -> None:
        texts = [text for call in batch for text in call.texts]
        observe_embedding_batch(len(batch))
        with calls_captured() as recorded:
            try:
                vectors = await self._inner.embed(texts, input_type=batch[0].input_type)
            except Exception as exc:
                failed: Exception | None = exc
            else:
                failed = None
        total = sum(call.chars for call in batch) or 1
        for call in batch:
            call.calls.append((recorded, call.chars / total))
        if failed is not None and len(batch) > 1:
            for call in batch:  # one by one: only the call whose text failed fails
                await self._send([call])
            return
        start = 0
        for call in batch:
            if failed is not None:
                _fail(call, failed)
            elif not call.done.done():  # done already: its caller was cancelled
                call.done.set_result(vectors[start : start + len(call.texts)])
            start += len(call.texts)


def _fail(call: _Call, exc: BaseException) -> None:
    if not call.done.done():
        call.done.set_exception(exc)
