"""Remote embedders: Voyage (voyageai client) and the OpenAI embeddings API (openai client).

Both split texts into requests within the API's limits, send them concurrently (bounded per
process), record every HTTP call with role "embed", and return vectors in input order.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Literal

import openai

from shared.config import ModelSettings
from shared.errors import PermanentError
from shared.providers.remote.batching import clip_to_tokens, non_empty, token_batches
from shared.providers.remote.errors import (
    Endpoint,
    from_openai_error,
    from_voyage_error,
    voyage_is_transient,
)
from shared.providers.remote.limits import call_slots
from shared.providers.remote.retry import with_retries
from shared.text.tokens import count_tokens
from shared.usage import record_call

InputType = Literal["document", "query"]
Vectors = list[list[float]]

VOYAGE_DIMENSIONS = {"voyage-3-lite": 512}  # every other current Voyage text model: 1024
VOYAGE_DEFAULT_DIMENSION = 1024
VOYAGE_MAX_TEXTS = 128  # the voyageai client's own batch size (the API has allowed 128 to 1000)
VOYAGE_DEFAULT_URL = "https://api.voyageai.com/v1"
OPENAI_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
OPENAI_MAX_TEXTS = 2048
OPENAI_MAX_REQUEST_TOKENS = 300_000
OPENAI_MAX_TEXT_TOKENS = 8191  # longer inputs are rejected, not truncated
_BUDGET_SHARE = 0.8  # headroom for texts where our token estimate runs low (code, other scripts)


def voyage_request_tokens(model: str) -> int:
    """Tokens one Voyage request may carry (Voyage API reference: per-model totals)."""
    if "lite" in model:
        return 1_000_000
    if model in {"voyage-2", "voyage-3", "voyage-3.5", "voyage-4"}:
        return 320_000
    return 120_000  # voyage-3-large, voyage-4-large, code, finance, law


class _RemoteEmbedder:
    """Batching, concurrency, usage and dimension checks; subclasses send one request."""

    provider: str
    model: str
    dimension: int
    _max_texts: int
    _max_tokens: int
    _concurrency: int

    async def embed(self, texts: list[str], input_type: InputType = "document") -> Vectors:
        if input_type not in ("document", "query"):
            raise ValueError(f"input_type must be 'document' or 'query', not {input_type!r}")
        prepared = [self._prepare(text) for text in texts]
        batches = token_batches(prepared, max_items=self._max_texts, max_tokens=self._max_tokens)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(self._embed_batch(prepared[b.start : b.stop], input_type))
                    for b in batches
                ]
        except ExceptionGroup as failed:
            raise failed.exceptions[0] from None  # the pipeline classifies one error, not a group
        return [vector for task in tasks for vector in task.result()]

    def _prepare(self, text: str) -> str:
        return non_empty(text)

    async def _embed_batch(self, batch: list[str], input_type: InputType) -> Vectors:
        async with call_slots("embed", self._concurrency):
            vectors = await self._request(batch, input_type)
        if len(vectors) != len(batch) or any(len(v) != self.dimension for v in vectors):
            sizes = sorted({len(vector) for vector in vectors})
            raise PermanentError(
                f"{self.provider} model {self.model} returned {len(vectors)} vectors of "
                f"dimension {sizes} for {len(batch)} texts; expected dimension {self.dimension}"
            )
        return vectors

    async def _request(self, batch: list[str], input_type: InputType) -> Vectors:
        raise NotImplementedError

    async def _recorded(
        self, batch: list[str], call: Callable[[], Awaitable[tuple[Vectors, int | None]]]
    ) -> Vectors:
        """One HTTP call, recorded as ok or error with the tokens it used (or our estimate)."""
        started = time.monotonic()
        estimate = sum(count_tokens(text) for text in batch)
        try:
            vectors, tokens = await call()
        except Exception:
            await self._record(estimate, started, "error")
            raise
        await self._record(tokens or estimate, started, "ok")
        return vectors

    async def _record(self, tokens: int, started: float, outcome: str) -> None:
        await record_call(
            role="embed",
            provider=self.provider,
            model=self.model,
            prompt_tokens=tokens,
            completion_tokens=0,
            started=started,
            outcome=outcome,
        )


class VoyageEmbedder(_RemoteEmbedder):
    """Voyage embeddings (voyage-3-large: 1024-d); `input_type` tells documents from queries.

    The voyageai client retries only 429/502-504/timeouts and ignores Retry-After, so it makes a
    single attempt and shared.providers.remote.retry does the retrying, as openai does for chat.
    """

    provider = "voyage"

    def __init__(self, settings: ModelSettings, *, dimension: int | None = None) -> None:
        import voyageai  # imported here: processes without a Voyage key never load it

        self.model = settings.voyage_model
        _refuse_local_voyage_model(self.model)
        self.dimension = dimension or VOYAGE_DIMENSIONS.get(self.model, VOYAGE_DEFAULT_DIMENSION)
        self._max_texts = min(settings.embed_batch_size, VOYAGE_MAX_TEXTS)
        self._max_tokens = int(voyage_request_tokens(self.model) * _BUDGET_SHARE)
        self._concurrency = settings.llm_concurrency
        self._max_retries = settings.llm_max_retries
        key = settings.voyage_api_key.get_secret_value() if settings.voyage_api_key else None
        base_url = settings.voyage_base_url.rstrip("/") or None  # the client appends /embeddings
        self._client = voyageai.AsyncClient(
            api_key=key,
            max_retries=1,  # voyageai counts attempts, not retries: one attempt per call
            timeout=settings.llm_timeout_seconds,
            base_url=base_url,
        )
        self._endpoint = Endpoint(
            base_url=base_url or VOYAGE_DEFAULT_URL,
            model=self.model,
            key_setting="ARTISAN_VOYAGE_API_KEY",
            url_setting="ARTISAN_VOYAGE_BASE_URL",
            model_setting="ARTISAN_VOYAGE_MODEL",
            attempts=settings.llm_max_retries + 1,
            timeout_seconds=settings.llm_timeout_seconds,
        )

    async def _request(self, batch: list[str], input_type: InputType) -> Vectors:
        from voyageai.error import VoyageError

        async def attempt() -> Vectors:
            return await self._recorded(batch, lambda: self._send(batch, input_type))

        try:
            return await with_retries(
                attempt,
                max_retries=self._max_retries,
                is_transient=voyage_is_transient,
                headers_of=lambda exc: getattr(exc, "headers", None),
            )
        except VoyageError as exc:
            raise from_voyage_error(exc, self._endpoint, "embed") from exc

    async def _send(self, batch: list[str], input_type: InputType) -> tuple[Vectors, int | None]:
        result = await self._client.embed(
            batch, model=self.model, input_type=input_type, truncation=True
        )
        return [list(vector) for vector in result.embeddings], result.total_tokens


class OpenAIEmbedder(_RemoteEmbedder):
    """OpenAI embeddings (text-embedding-3-small: 1536-d); queries and documents share a space.
    The openai client retries 408/409/429/5xx and timeouts itself, honouring Retry-After."""

    provider = "openai"

    def __init__(self, settings: ModelSettings, *, dimension: int | None = None) -> None:
        self.model = settings.openai_embed_model
        known = OPENAI_DIMENSIONS.get(self.model)
        if dimension is None and known is None:
            raise PermanentError(
                f"the dimension of embedding model {self.model!r} is unknown "
                f"(known: {', '.join(OPENAI_DIMENSIONS)}); set ARTISAN_OPENAI_EMBED_MODEL"
            )
        self.dimension = dimension or known or 0
        self._max_texts = min(settings.embed_batch_size, OPENAI_MAX_TEXTS)
        self._max_tokens = int(OPENAI_MAX_REQUEST_TOKENS * _BUDGET_SHARE)
        self._concurrency = settings.llm_concurrency
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
        self._client = openai.AsyncOpenAI(
            base_url=settings.openai_base_url or None,
            api_key=key or "not-needed",  # a local server takes any key; OpenAI answers 401
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
        )
        self._endpoint = Endpoint(
            base_url=str(self._client.base_url).rstrip("/"),
            model=self.model,
            key_setting="ARTISAN_OPENAI_API_KEY",
            url_setting="ARTISAN_OPENAI_BASE_URL",
            model_setting="ARTISAN_OPENAI_EMBED_MODEL",
            attempts=settings.llm_max_retries + 1,
            timeout_seconds=settings.llm_timeout_seconds,
        )

    async def aclose(self) -> None:
        await self._client.close()

    def _prepare(self, text: str) -> str:
        return clip_to_tokens(non_empty(text), OPENAI_MAX_TEXT_TOKENS)

    async def _request(self, batch: list[str], input_type: InputType) -> Vectors:
        try:
            return await self._recorded(batch, lambda: self._send(batch))
        except openai.APIError as exc:
            raise from_openai_error(exc, self._endpoint, "embed") from exc

    async def _send(self, batch: list[str]) -> tuple[Vectors, int | None]:
        response = await self._client.embeddings.create(model=self.model, input=batch)
        ordered = sorted(response.data, key=lambda item: item.index)
        tokens = response.usage.prompt_tokens if response.usage else None
        return [list(item.embedding) for item in ordered], tokens


def _refuse_local_voyage_model(model: str) -> None:
    """voyageai runs some models (voyage-4-nano) locally by downloading weights: never here."""
    try:
        from voyageai.local.helpers import is_local_model
    except ImportError:  # older voyageai: every model is remote
        return
    if is_local_model(model):
        raise PermanentError(
            f"Voyage model {model!r} runs locally from downloaded weights, which Artisan never "
            "fetches at run time; set ARTISAN_VOYAGE_MODEL to a hosted model (voyage-3-large)"
        )
