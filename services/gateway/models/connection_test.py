"""Settings' "Test connection": one tiny real call to the chat model and one to the embeddings
provider, through the same clients the services use, each bounded by a short timeout with no
retries, so an address that never answers costs the admin seconds, not minutes. The calls are
shared/models/probe.py's (the gateway builds no provider); this module words what they found.

What comes back is a summary — the HTTP status, whether the endpoint spoke the OpenAI-compatible
format, the models it lists, the latency — and never what the endpoint wrote: an address may be
anything, and its answer is no business of the admin's browser. Each address is checked against
the model-host rules again just before it is called (its name may resolve elsewhere by now)."""

import asyncio
import re
from dataclasses import dataclass, field

import httpx
from pydantic import SecretStr

from services.gateway.models.schemas import CheckResult, ConnectionReport
from shared.config import ModelSettings
from shared.models.hosts import ModelHostRefused, Network, allowed_hosts, endpoints_of, vet
from shared.models.probe import Failure, Probe, probe_chat, probe_embeddings
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
# whether it answered in the OpenAI-compatible format, where the failure tells (else: unknown)
_SPOKE_OPENAI = {
    Failure.NOT_A_CHAT_REPLY: False,
    Failure.UNREADABLE: False,
    Failure.TOO_SLOW: True,
    Failure.WRONG_OUTPUT: True,
}
CHECK_THE_ADDRESS = "check the base URL (it usually ends in /v1)"


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
    probe = await probe_chat(settings, deadline_seconds=_DEADLINE_SECONDS)
    if probe.failure:
        return _failed(probe, probe.failure, network, await listing)
    return _passed(f"Connected: {settings.llm_model} answered", probe, network, await listing)


async def _check_embeddings(settings: ModelSettings) -> CheckResult:
    url = endpoints_of(settings).get("embeddings")
    if url is None:
        return CheckResult(ok=True, message="Offline embeddings: nothing to test.")
    try:
        network = await vet(url, allowed=allowed_hosts(settings.model_hosts_allowed))
    except ModelHostRefused as refused:
        return CheckResult(ok=False, message=_sentence(f"the embeddings address {refused}"))
    probe = await probe_embeddings(settings, deadline_seconds=_DEADLINE_SECONDS)
    if probe.failure:
        return _failed(probe, probe.failure, network, Listing())
    what = f"Connected: {probe.model} returned {probe.dimensions} dimensions"
    return _passed(what, probe, network, Listing())


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


def _passed(what: str, probe: Probe, network: Network, listing: Listing) -> CheckResult:
    elapsed_ms = probe.latency_ms
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


def _failed(probe: Probe, failure: Failure, network: Network, listing: Listing) -> CheckResult:
    """What failed and what to do, from the kind of failure and its HTTP status alone."""
    return CheckResult(
        ok=False,
        message=_sentence(_what_failed(probe, failure, listing)),
        network=network,
        status_code=probe.status,
        spoke_openai=_SPOKE_OPENAI.get(failure),
        models=listing.names,
    )


def _what_failed(probe: Probe, failure: Failure, listing: Listing) -> str:
    if failure is Failure.TOO_SLOW:
        return "it did not finish a one-line answer in time: the model may be too slow for Artisan"
    if failure in (Failure.NOT_A_CHAT_REPLY, Failure.UNREADABLE):
        return f"it answered, but not in the OpenAI-compatible format: {CHECK_THE_ADDRESS}"
    if failure is Failure.WRONG_OUTPUT:
        return (
            f"{probe.model} answered, but not with the JSON asked for (also when asked again):"
            " Artisan needs a model that follows JSON instructions"
        )
    if failure is Failure.REFUSED and probe.status is not None:
        return _refused(probe.status, probe.model, listing)
    if failure is Failure.NO_ANSWER:
        return f"no answer within {_DEADLINE_SECONDS:g} s: check the address"
    if failure is Failure.UNREACHABLE:
        return (
            "the connection failed: nothing answers at that address from this server (check the"
            " address and port, and that the model server runs)"
        )
    said = probe.detail  # our own configuration errors: they name a setting, not the endpoint's
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


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
