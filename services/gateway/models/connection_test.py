"""Settings' "Test connection": one tiny real call to the chat model and one to the embeddings
provider, through the same clients the services use, each bounded by a short timeout with no
retries, so an address that never answers costs the admin seconds, not minutes.

What comes back is a summary — the HTTP status, whether the endpoint spoke the OpenAI-compatible
format, the models it lists, the latency — and never what the endpoint wrote: an address may be
anything, and its answer is no business of the admin's browser. Each address is checked against
the model-host rules again just before it is called (its name may resolve elsewhere by now)."""

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import openai
from pydantic import BaseModel, SecretStr

from services.gateway.models.schemas import CheckResult, ConnectionReport
from shared.config import ModelSettings
from shared.errors import (
    ModelFailure,
    ModelOutputError,
    ModelTooSlowError,
    ModelUnavailableError,
    NotAChatReplyError,
    PermanentError,
)
from shared.model_hosts import ModelHostRefused, Network, allowed_hosts, endpoints_of, vet
from shared.prompts import load_prompt
from shared.providers import registry
from shared.secrets import redact

TEST_TIMEOUT_SECONDS = 10.0
_DEADLINE_SECONDS = TEST_TIMEOUT_SECONDS + 2  # the client's own timeout comes first
LIST_TIMEOUT_SECONDS = 3.0
MAX_MODELS_SHOWN = 20
_MODEL_NAME = re.compile(r"[\w.:/@+-]{1,100}")  # a name, not text an endpoint slipped in
# our own configuration errors name the environment variables; the panel names its own fields
_FIELD_WORDS = {
    "ARTISAN_VOYAGE_MODEL": "the embeddings model",
    "ARTISAN_OPENAI_EMBED_MODEL": "the embeddings model",
}
_FAILURES = (PermanentError, ModelUnavailableError, TimeoutError, ValueError)
# what a client raises on an answer in no shape it expected (e.g. an HTML page)
_UNREADABLE = (AttributeError, TypeError, KeyError, IndexError)
_ANSWERED_UNREADABLY = (ModelFailure, *_UNREADABLE)
CHECK_THE_ADDRESS = "check the base URL (it usually ends in /v1)"


class _Reply(BaseModel):
    reply: str


@dataclass(frozen=True)
class Listing:
    """What GET {base}/models answered: its status, whether in OpenAI's shape, and the names."""

    status: int | None = None
    names: list[str] = field(default_factory=list)


async def check_connection(settings: ModelSettings) -> ConnectionReport:
    bounded = settings.model_copy(
        update={"llm_timeout_seconds": TEST_TIMEOUT_SECONDS, "llm_max_retries": 0}
    )
    chat, embeddings = await asyncio.gather(_check_chat(bounded), _check_embeddings(bounded))
    return ConnectionReport(ok=chat.ok and embeddings.ok, chat=chat, embeddings=embeddings)


async def _check_chat(settings: ModelSettings) -> CheckResult:
    if not settings.remote_llm:
        return CheckResult(ok=True, message="Offline: answers quote your files (nothing to test).")
    url = endpoints_of(settings)["chat"]
    try:
        network = await vet(url, allowed=allowed_hosts(settings.model_hosts_allowed))
    except ModelHostRefused as refused:
        return CheckResult(ok=False, message=_sentence(f"the address {refused}"))
    # the model list is asked beside the call, for names to show: it never decides the result
    listing = asyncio.create_task(listed_models(url, settings.llm_api_key))
    chat = registry.build_chat_model(settings)
    system, user = load_prompt("connection_test").render()
    started = time.monotonic()
    try:
        async with asyncio.timeout(_DEADLINE_SECONDS):
            await chat.complete_json(role="test", system=system, user=user, schema=_Reply)
    except (*_FAILURES, *_UNREADABLE) as exc:
        return _failed(exc, settings.llm_model, network, await listing)
    finally:
        await chat.aclose()
    passed = f"Connected: {settings.llm_model} answered"
    return _passed(passed, started, network, await listing)


async def _check_embeddings(settings: ModelSettings) -> CheckResult:
    url = endpoints_of(settings).get("embeddings")
    if url is None:
        return CheckResult(ok=True, message="Offline embeddings: nothing to test.")
    try:
        network = await vet(url, allowed=allowed_hosts(settings.model_hosts_allowed))
    except ModelHostRefused as refused:
        return CheckResult(ok=False, message=_sentence(f"the embeddings address {refused}"))
    started = time.monotonic()
    model = ""
    try:
        embedder = registry.build_embedder(settings)
        model = embedder.model
        async with asyncio.timeout(_DEADLINE_SECONDS):
            [vector] = await embedder.embed(["Artisan connection test"], input_type="query")
    except (*_FAILURES, *_UNREADABLE) as exc:
        return _failed(exc, model, network, Listing())
    what = f"Connected: {embedder.model} returned {len(vector)} dimensions"
    return _passed(what, started, network, Listing())


async def listed_models(base_url: str, key: SecretStr | None) -> Listing:
    """The models an OpenAI-compatible endpoint lists; nothing when it lists none. Redirects are
    not followed: only the address that was checked is asked."""
    secret = key.get_secret_value() if key else ""
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    try:
        async with httpx.AsyncClient(timeout=LIST_TIMEOUT_SECONDS) as http:
            response = await http.get(f"{base_url.rstrip('/')}/models", headers=headers)
        listed = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return Listing()
    if not isinstance(listed, list):
        return Listing(response.status_code)
    models = [item for item in listed if isinstance(item, dict) and item.get("object") == "model"]
    shown = [model["id"] for model in models if _is_model_name(model.get("id"))]
    return Listing(response.status_code, shown[:MAX_MODELS_SHOWN])


def _is_model_name(name: object) -> bool:
    """A model's name, not text an endpoint slipped in (nor anything that looks like a key)."""
    return isinstance(name, str) and bool(_MODEL_NAME.fullmatch(name)) and redact(name).count == 0


def _passed(what: str, started: float, network: Network, listing: Listing) -> CheckResult:
    elapsed_ms = round(1000 * (time.monotonic() - started))
    took = f"{elapsed_ms} ms" if elapsed_ms < 1000 else f"{elapsed_ms / 1000:.1f} s"
    return CheckResult(
        ok=True,
        message=f"{what} in {took}.",
        latency_ms=elapsed_ms,
        network=network,
        status_code=200,
        spoke_openai=True,
        models=listing.names,
    )


def _failed(exc: Exception, model: str, network: Network, listing: Listing) -> CheckResult:
    """What failed and what to do, from the kind of failure and its HTTP status alone."""
    status = _status_of(exc)
    if isinstance(exc, ModelOutputError):
        status = 200  # it answered, in the right format, but not with what was asked
    message = _what_failed(exc, status, model, listing)
    return CheckResult(
        ok=False,
        message=_sentence(message),
        network=network,
        status_code=status,
        spoke_openai=_spoke_openai(exc, status),
        models=listing.names,
    )


def _what_failed(exc: Exception, status: int | None, model: str, listing: Listing) -> str:
    if isinstance(exc, ModelTooSlowError):
        return "it did not finish a one-line answer in time: the model may be too slow for Artisan"
    if isinstance(exc, NotAChatReplyError):
        return f"it answered, but not in the OpenAI-compatible format: {CHECK_THE_ADDRESS}"
    if isinstance(exc, ModelOutputError):
        return (
            f"{model} answered, but not with the JSON asked for (also when asked again): Artisan"
            " needs a model that follows JSON instructions"
        )
    if status is not None and status >= 300:
        return _refused(status, model, listing)
    if _any_cause(exc, _timeouts()):
        return f"no answer within {_DEADLINE_SECONDS:g} s: check the address"
    if _any_cause(exc, _connection_errors()):
        return (
            "the connection failed: nothing answers at that address from this server (check the"
            " address and port, and that the model server runs)"
        )
    if isinstance(exc, _ANSWERED_UNREADABLY):  # an answer the client could not read
        return f"it answered, but not in the OpenAI-compatible format: {CHECK_THE_ADDRESS}"
    said = str(exc)  # our own configuration errors: they name a setting, not the endpoint's text
    for name, words in _FIELD_WORDS.items():
        said = said.replace(name, words)
    return said


def _refused(status: int, model: str, listing: Listing) -> str:
    if status == 401:
        return "the endpoint rejected the API key (HTTP 401): check the API key"
    if status == 403:
        return f"the endpoint refused this API key access to {model!r} (HTTP 403)"
    if status == 404:
        lists = f"; it lists {', '.join(listing.names[:5])}" if listing.names else ""
        return (
            f"the endpoint has no model {model!r} or no such path (HTTP 404): check the model"
            f" name, and {CHECK_THE_ADDRESS}{lists}"
        )
    if status == 429:
        return "the endpoint is busy or over its rate limit (HTTP 429): try again in a moment"
    if status >= 500:
        return f"the endpoint fails (HTTP {status}): try again later, or see its own logs"
    if 300 <= status < 400:
        return f"the endpoint redirects elsewhere (HTTP {status}): use the address it moved to"
    return f"the endpoint refused the test request (HTTP {status}): {CHECK_THE_ADDRESS}"


def _spoke_openai(exc: Exception, status: int | None) -> bool | None:
    """True: it answered in the format, not what was asked; False: in no format the client
    reads; None: no answer to judge (none came, or an HTTP error)."""
    if isinstance(exc, NotAChatReplyError):
        return False
    if isinstance(exc, ModelOutputError):
        return True
    if (status is not None and status >= 300) or not isinstance(exc, _ANSWERED_UNREADABLY):
        return None
    no_answer = _any_cause(exc, _timeouts()) or _any_cause(exc, _connection_errors())
    return None if no_answer else False


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


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
