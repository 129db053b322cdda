"""What the gateway may learn of models for given settings without building a provider itself:
one small real call (Settings' "Test connection"), the embedding space the settings imply, and
the local model's name. Results are provider-neutral: a `Probe` says how a call went in kinds
(`Failure`) and an HTTP status, never what an endpoint wrote, nor which client made the call.

Why a probe in the gateway's process rather than a request to a service: the settings under test
are not saved yet and hold the key the admin just typed, which a bus request would carry to
another process; and the test must speak of the endpoint alone, not fail because the chat
service is busy or restarting. The probe builds the provider through the registry, as the
services do, so it meets the endpoint with the same clients and the same error handling.
"""

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

import httpx
import openai
from pydantic import BaseModel

from shared.config import ModelSettings
from shared.errors import (
    ModelFailure,
    ModelOutputError,
    ModelTooSlowError,
    ModelUnavailableError,
    NotAChatReplyError,
    PermanentError,
)
from shared.prompts import load_prompt
from shared.providers import registry

LOCAL_CHAT_MODEL = registry.LOCAL_MODEL  # the offline rules' name, as usage records show it
_FAILURES = (PermanentError, ModelUnavailableError, TimeoutError, ValueError)
# what a client raises on an answer in no shape it expected (e.g. an HTML page)
_UNREADABLE = (AttributeError, TypeError, KeyError, IndexError)
_ANSWERED_UNREADABLY = (ModelFailure, *_UNREADABLE)


class Failure(StrEnum):
    """How a call failed, from the kind of error and its HTTP status alone."""

    TOO_SLOW = "too_slow"  # it did not finish a bounded answer by its deadline
    NOT_A_CHAT_REPLY = "not_a_chat_reply"  # it answered, not in the OpenAI-compatible format
    WRONG_OUTPUT = "wrong_output"  # it answered in the format, not with the JSON asked for
    REFUSED = "refused"  # an HTTP status of 300 or more: `status` says which
    NO_ANSWER = "no_answer"  # nothing came back in time
    UNREACHABLE = "unreachable"  # the connection failed: nothing answers at the address
    UNREADABLE = "unreadable"  # an answer the client could not read
    SETTINGS = "settings"  # our own configuration error: `detail` names the setting


@dataclass(frozen=True)
class Probe:
    """How one call went: the model's name, its latency, and how it failed if it did."""

    model: str = ""
    latency_ms: int = 0
    dimensions: int = 0  # embeddings: the length of the vector returned
    failure: Failure | None = None
    status: int | None = None  # the HTTP status behind a failure, where one came
    detail: str = ""  # with Failure.SETTINGS: our own message (never the endpoint's text)


class _Reply(BaseModel):
    reply: str


async def probe_chat(settings: ModelSettings, *, deadline_seconds: float) -> Probe:
    """One tiny JSON answer from the chat model these settings name."""
    chat = registry.build_chat_model(settings)
    system, user = load_prompt("connection_test").render()
    started = time.monotonic()
    try:
        async with asyncio.timeout(deadline_seconds):
            await chat.complete_json(role="test", system=system, user=user, schema=_Reply)
    except (*_FAILURES, *_UNREADABLE) as exc:
        return _failed(exc, settings.llm_model)
    finally:
        await chat.aclose()
    return Probe(model=settings.llm_model, latency_ms=_since(started))


async def probe_embeddings(settings: ModelSettings, *, deadline_seconds: float) -> Probe:
    """One short text embedded by the embeddings model these settings name."""
    started = time.monotonic()
    model = ""
    try:
        embedder = registry.build_embedder(settings)
        model = embedder.model
        async with asyncio.timeout(deadline_seconds):
            [vector] = await embedder.embed(["Artisan connection test"], input_type="query")
    except (*_FAILURES, *_UNREADABLE) as exc:
        return _failed(exc, model)
    return Probe(model=model, latency_ms=_since(started), dimensions=len(vector))


def embedding_space_of(settings: ModelSettings) -> tuple[str, int]:
    """The model and dimension these settings embed with, without loading any weights."""
    return registry.embedding_space_of(settings)


def _since(started: float) -> int:
    return round(1000 * (time.monotonic() - started))


def _failed(exc: Exception, model: str) -> Probe:
    status = 200 if isinstance(exc, ModelOutputError) else _status_of(exc)  # it did answer
    failure = _failure_of(exc, status)
    detail = str(exc) if failure is Failure.SETTINGS else ""
    return Probe(model=model, failure=failure, status=status, detail=detail)


def _failure_of(exc: Exception, status: int | None) -> Failure:
    if isinstance(exc, ModelTooSlowError):
        return Failure.TOO_SLOW
    if isinstance(exc, NotAChatReplyError):
        return Failure.NOT_A_CHAT_REPLY
    if isinstance(exc, ModelOutputError):
        return Failure.WRONG_OUTPUT
    if status is not None and status >= 300:
        return Failure.REFUSED
    if _any_cause(exc, _timeouts()):
        return Failure.NO_ANSWER
    if _any_cause(exc, _connection_errors()):
        return Failure.UNREACHABLE
    if isinstance(exc, _ANSWERED_UNREADABLY):
        return Failure.UNREADABLE
    return Failure.SETTINGS  # our own configuration errors name a setting, not the endpoint


def _timeouts() -> tuple[type[BaseException], ...]:
    from voyageai import error  # loaded only once a failure is to be told

    return (TimeoutError, openai.APITimeoutError, httpx.TimeoutException, error.Timeout)


def _connection_errors() -> tuple[type[BaseException], ...]:
    from voyageai import error

    return (openai.APIConnectionError, httpx.TransportError, OSError, error.APIConnectionError)


def _status_of(exc: BaseException) -> int | None:
    """The HTTP status behind a failure: the openai client's, or voyageai's."""
    for cause in _causes(exc):
        status = getattr(cause, "status_code", None) or getattr(cause, "http_status", None)
        if isinstance(status, int):
            return status
    return None


def _any_cause(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> bool:
    return any(isinstance(cause, kinds) for cause in _causes(exc))


def _causes(exc: BaseException | None) -> Iterator[BaseException]:
    for _ in range(10):  # a cycle of causes is possible, never this deep
        if exc is None:
            return
        yield exc
        exc = exc.__cause__ or exc.__context__
