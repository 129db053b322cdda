"""Chooses each model role's implementation from settings: remote when configured, else local.

Local implementations are wrapped so that their calls are recorded like remote ones (provider
"local", estimated tokens, no cost); remote ones record each HTTP call themselves.
"""

import logging
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from shared.config import ModelSettings, model_settings
from shared.errors import ModelOutputError
from shared.models.changes import when_models_change
from shared.providers.base import (
    AnswerChecker,
    Answerer,
    ChatModel,
    Chunker,
    Classifier,
    Compressor,
    Embedder,
    MemoryExtractor,
    Summariser,
    Verifier,
)
from shared.providers.batched_embedder import BatchedEmbedder
from shared.providers.cpu import run_sized
from shared.text.tokens import count_tokens
from shared.usage import LOCAL_PROVIDER, record_call

logger = logging.getLogger(__name__)
LOCAL_MODEL = "artisan-local-1"
TOKEN_COUNT_SPEEDUP = 30  # counting tokens vs chunking, per character
# the role each local method plays, as usage records name it
_ROLE_OF_METHOD = {
    "classify_file": "classify",
    "classify_chunk": "classify",
    "chunk": "chunk",
    "compress": "compress",
    "compress_turn": "compress",
    "verify": "verify",
    "verify_turn": "verify",
    "summarise_section": "summarise",
    "summarise_file": "summarise",
    "embed": "embed",
    "extract_facts": "memory",
    "check_answer": "check",
}


class RecordedLocal:
    """Forwards to a local provider and records each role call (tokens estimated offline);
    `outcome` "fallback" marks calls made in place of a model that could not answer."""

    def __init__(self, provider: Any, outcome: str = "ok") -> None:
        self._provider, self._outcome = provider, outcome

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._provider, name)
        if name not in _ROLE_OF_METHOD:
            return attribute

        async def recorded(*args: Any, **kwargs: Any) -> Any:
            started = time.monotonic()
            result = await attribute(*args, **kwargs)
            inputs = [*args, *kwargs.values()]
            # counting a whole file's tokens is work for a thread too (run_sized), though a
            # character costs it about 30 times less than the model work it follows
            prompt_tokens, completion_tokens = await run_sized(
                _chars_in(inputs) // TOKEN_COUNT_SPEEDUP,
                lambda: (_tokens_in(inputs), 0 if name == "embed" else _tokens_in([result])),
            )
            await record_call(
                role=_ROLE_OF_METHOD[name],
                provider=LOCAL_PROVIDER,
                model=LOCAL_MODEL,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                started=started,
                outcome=self._outcome,
            )
            return result

        return recorded


class OfflineFallback:
    """A model role whose answer, when the model cannot give it in shape or in time
    (ModelOutputError, also after the repair attempt), is the offline rule's — for roles where
    that is the same kind of thing (a file's type, its chunks' boundaries, a summary). The usage
    record of that call says "fallback"."""

    def __init__(self, remote: Any, local: Any) -> None:
        self._remote, self._local = remote, RecordedLocal(local, outcome="fallback")

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._remote, name)
        if name not in _ROLE_OF_METHOD:
            return attribute

        async def answered(*args: Any, **kwargs: Any) -> Any:
            try:
                return await attribute(*args, **kwargs)
            except ModelOutputError as exc:
                logger.warning("%s by the offline rule instead: %s", name, exc)
                return await getattr(self._local, name)(*args, **kwargs)

        return answered


def _texts_in(values: Iterable[Any], *, objects: bool) -> Iterator[str]:
    """The texts among `values` and in their lists; with `objects`, each object's text too."""
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from _texts_in(value, objects=objects)
        elif objects and (hasattr(value, "__dict__") or hasattr(value, "model_dump")):
            yield str(value)


def _tokens_in(values: list[Any]) -> int:
    return sum(count_tokens(text) for text in _texts_in(values, objects=True))


def _chars_in(values: list[Any]) -> int:
    """The characters of the texts among `values` and in their lists: the call's size."""
    return sum(len(text) for text in _texts_in(values, objects=False))


@lru_cache
def chat_model() -> ChatModel:
    return build_chat_model(model_settings())


def build_chat_model(settings: ModelSettings) -> ChatModel:
    """A chat model for these settings (chat_model() is the one in use)."""
    from shared.providers.remote.chat import OpenAICompatibleChat

    return OpenAICompatibleChat(settings)


def _local(name: str, **kwargs: Any) -> Any:
    from shared.providers import local

    return RecordedLocal(getattr(local, name)(**kwargs))


def _local_batched(name: str, **kwargs: Any) -> Any:
    """A local embedder whose concurrent calls share forward passes, each recorded on its own."""
    from shared.providers import local

    return RecordedLocal(BatchedEmbedder(getattr(local, name)(**kwargs)))


def _llm(name: str) -> Any:
    from shared.providers import llm

    return getattr(llm, name)(chat_model())


def _with_fallback(remote: str, local: str, **local_kwargs: Any) -> Any:
    from shared.providers import local as offline

    return OfflineFallback(_llm(remote), getattr(offline, local)(**local_kwargs))


@lru_cache
def classifier() -> Classifier:
    if model_settings().remote_ingestion:
        return _with_fallback("LLMClassifier", "LocalClassifier")
    return _local("LocalClassifier")


@lru_cache
def chunker() -> Chunker:
    local = {"target_words": model_settings().target_chunk_words}
    if model_settings().remote_ingestion:
        return _with_fallback("LLMChunker", "LocalChunker", **local)
    return _local("LocalChunker", **local)


@lru_cache
def compressor() -> Compressor:
    return _llm("LLMCompressor") if model_settings().remote_ingestion else _local("LocalCompressor")


@lru_cache
def verifier() -> Verifier:
    return _llm("LLMVerifier") if model_settings().remote_ingestion else _local("LocalVerifier")


@lru_cache
def summariser() -> Summariser:
    if model_settings().remote_ingestion:
        return _with_fallback("LLMSummariser", "LocalSummariser")
    return _local("LocalSummariser")


@lru_cache
def memory_extractor() -> MemoryExtractor:
    if model_settings().remote_ingestion:
        from shared.providers.llm.memory import LLMMemoryExtractor

        return LLMMemoryExtractor(chat_model())
    from shared.providers.local.memory_extractor import LocalMemoryExtractor

    return RecordedLocal(LocalMemoryExtractor())  # type: ignore[return-value]


@lru_cache
def embedder() -> Embedder:
    return build_embedder(model_settings())


def build_embedder(settings: ModelSettings) -> Embedder:
    """An embedder for these settings (embedder() is the one in use)."""
    match settings.embedder_kind:
        case "voyage":
            from shared.providers.remote.embeddings import VoyageEmbedder

            return BatchedEmbedder(VoyageEmbedder(settings))
        case "openai":
            from shared.providers.remote.embeddings import OpenAIEmbedder

            return BatchedEmbedder(OpenAIEmbedder(settings))
        case "minilm":
            return _local_batched("MiniLMEmbedder")
    return _local_batched("LocalEmbedder", dimension=settings.local_embed_dim)


@lru_cache
def answerer() -> Answerer:
    """Call 1A; the local one records its own calls (a stream is not a single awaitable)."""
    if model_settings().remote_llm:
        from shared.providers.llm.answer import LLMAnswerer

        return LLMAnswerer(chat_model())
    from shared.providers.local.answer import LocalAnswerer

    return LocalAnswerer(LOCAL_MODEL)


@lru_cache
def answer_checker() -> AnswerChecker:
    if model_settings().remote_llm:
        from shared.providers.llm.answer import LLMAnswerChecker

        return LLMAnswerChecker(chat_model())
    from shared.providers.local.answer_check import LocalAnswerChecker

    return RecordedLocal(LocalAnswerChecker())


def embedding_space_of(settings: ModelSettings) -> tuple[str, int]:
    """The model and dimension these settings embed with, without loading any weights."""
    if settings.embedder_kind == "minilm":  # its constructor loads the weights
        from shared.providers.local.minilm import MINILM_DIMENSION, MINILM_MODEL

        return MINILM_MODEL, MINILM_DIMENSION
    built = build_embedder(settings)  # the hashed one, or a remote client: no call is made
    return built.model, built.dimension


_IN_USE = (
    chat_model,
    classifier,
    chunker,
    compressor,
    verifier,
    summariser,
    memory_extractor,
    embedder,
    answerer,
    answer_checker,
)


def forget_providers() -> None:
    """Build every role again from the settings in use at its next call (they changed), and
    meet each endpoint afresh: what an earlier one refused says nothing of a new one."""
    from shared.providers.remote.structured import forget_dialects

    for cached in _IN_USE:
        cached.cache_clear()
    forget_dialects()


when_models_change(forget_providers)  # a switch of saved models reaches every role built
