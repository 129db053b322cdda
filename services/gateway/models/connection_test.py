"""Settings' "Test connection": one tiny real call to the chat model and one to the embeddings
provider, through the same clients the services use, each bounded by a short timeout with no
retries, so an address that never answers costs the admin seconds, not minutes."""

import asyncio
import time

from pydantic import BaseModel

from services.gateway.models.schemas import CheckResult, ConnectionReport
from shared.config import REMOTE_EMBEDDERS, ModelSettings
from shared.errors import ModelUnavailableError, PermanentError
from shared.prompts import load_prompt
from shared.providers import registry
from shared.secrets import redact

TEST_TIMEOUT_SECONDS = 10.0
_DEADLINE_SECONDS = TEST_TIMEOUT_SECONDS + 2  # the client's own timeout comes first
# the providers' messages name the environment variables; the panel names its own fields
_FIELD_WORDS = {
    "ARTISAN_LLM_API_KEY": "the API key",
    "ARTISAN_LLM_BASE_URL": "the base URL",
    "ARTISAN_LLM_MODEL": "the model name",
    "ARTISAN_VOYAGE_API_KEY": "the embeddings API key",
    "ARTISAN_VOYAGE_BASE_URL": "the embeddings base URL",
    "ARTISAN_VOYAGE_MODEL": "the embeddings model",
    "ARTISAN_OPENAI_API_KEY": "the embeddings API key",
    "ARTISAN_OPENAI_BASE_URL": "the embeddings base URL",
    "ARTISAN_OPENAI_EMBED_MODEL": "the embeddings model",
}
_FAILURES = (PermanentError, ModelUnavailableError, TimeoutError, ValueError)


class _Reply(BaseModel):
    reply: str


async def check_connection(settings: ModelSettings) -> ConnectionReport:
    bounded = settings.model_copy(
        update={"llm_timeout_seconds": TEST_TIMEOUT_SECONDS, "llm_max_retries": 0}
    )
    chat, embeddings = await asyncio.gather(_check_chat(bounded), _check_embeddings(bounded))
    return ConnectionReport(ok=chat.ok and embeddings.ok, chat=chat, embeddings=embeddings)


async def _check_chat(settings: ModelSettings) -> CheckResult:
    if not settings.remote_llm:
        return CheckResult(ok=True, message="Offline: answers quote your files (nothing to test).")
    chat = registry.build_chat_model(settings)
    system, user = load_prompt("connection_test").render()
    started = time.monotonic()
    try:
        async with asyncio.timeout(_DEADLINE_SECONDS):
            await chat.complete_json(role="test", system=system, user=user, schema=_Reply)
    except _FAILURES as exc:
        return _failed(exc, settings)
    finally:
        await chat.aclose()
    return _passed(f"Connected: {settings.llm_model} answered", started)


async def _check_embeddings(settings: ModelSettings) -> CheckResult:
    if settings.embedder_kind not in REMOTE_EMBEDDERS:
        return CheckResult(ok=True, message="Offline embeddings: nothing to test.")
    started = time.monotonic()
    try:
        embedder = registry.build_embedder(settings)
        async with asyncio.timeout(_DEADLINE_SECONDS):
            [vector] = await embedder.embed(["Artisan connection test"], input_type="query")
    except _FAILURES as exc:
        return _failed(exc, settings)
    return _passed(f"Connected: {embedder.model} returned {len(vector)} dimensions", started)


def _passed(what: str, started: float) -> CheckResult:
    elapsed_ms = round(1000 * (time.monotonic() - started))
    took = f"{elapsed_ms} ms" if elapsed_ms < 1000 else f"{elapsed_ms / 1000:.1f} s"
    return CheckResult(ok=True, message=f"{what} in {took}.", latency_ms=elapsed_ms)


def _failed(exc: Exception, settings: ModelSettings) -> CheckResult:
    if isinstance(exc, TimeoutError):
        message = f"no answer within {_DEADLINE_SECONDS:g} s: check the address"
    else:
        message = str(exc)
    for name, words in _FIELD_WORDS.items():
        message = message.replace(name, words)
    for secret in (settings.llm_api_key, settings.voyage_api_key, settings.openai_api_key):
        if secret and secret.get_secret_value():
            message = message.replace(secret.get_secret_value(), "[the key]")
    return CheckResult(ok=False, message=_sentence(redact(message).text))


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
