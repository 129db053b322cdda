"""Whether the chat model answers at all, asked cheaply and remembered for a few seconds, so the
status chip never shows a model that is down as ready, and status calls stay cheap however many
clients ask: the embedded model's /health, or any other endpoint's model list (GET {base}/models,
with its key), bounded by a short timeout."""

import asyncio
import hashlib
import time
from dataclasses import dataclass

import httpx

from shared.config import ModelSettings
from shared.models.server_settings import model_server_settings

PROBE_TIMEOUT_SECONDS = 2.0
REMEMBER_SECONDS = 10.0
OPENAI_BASE_URL = "https://api.openai.com/v1"  # where the openai client goes without a base URL


@dataclass(frozen=True)
class Reach:
    answers: bool
    reason: str = ""  # why it does not, in words: "nothing listens at that address"


_seen: dict[tuple[str, str], tuple[float, Reach]] = {}
_one_probe_at_a_time = asyncio.Lock()  # many status calls at once make one request, not many


def is_embedded(settings: ModelSettings) -> bool:
    """The chat endpoint is the model `artisan up --model` serves on this machine."""
    embedded = model_server_settings().model_base_url
    return bool(embedded) and settings.llm_base_url.rstrip("/") == embedded.rstrip("/")


async def reach(settings: ModelSettings) -> Reach:
    """Whether the chat endpoint answered, as last seen within REMEMBER_SECONDS."""
    url, headers = _probe_request(settings)
    # the key is part of what is probed (a wrong one is refused), but never kept in plain text
    seen_as = (url, hashlib.sha256(headers.get("Authorization", "").encode()).hexdigest())
    if fresh := _remembered(seen_as):
        return fresh
    async with _one_probe_at_a_time:
        if fresh := _remembered(seen_as):  # another call probed while this one waited
            return fresh
        found = await _probe(url, headers)
        _seen[seen_as] = (time.monotonic(), found)
    return found


def _remembered(seen_as: tuple[str, str]) -> Reach | None:
    seen = _seen.get(seen_as)
    return seen[1] if seen and time.monotonic() - seen[0] < REMEMBER_SECONDS else None


def _probe_request(settings: ModelSettings) -> tuple[str, dict[str, str]]:
    """The cheapest request the endpoint answers: no tokens generated, nothing billed."""
    health = model_server_settings().model_health_url
    if is_embedded(settings) and health:
        return health, {}
    base = (settings.llm_base_url or OPENAI_BASE_URL).rstrip("/")
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
    return f"{base}/models", {"Authorization": f"Bearer {key}"} if key else {}


async def _probe(url: str, headers: dict[str, str]) -> Reach:
    try:
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_SECONDS) as http:
            response = await http.get(url, headers=headers)
    except httpx.TimeoutException:
        return Reach(False, f"no answer within {PROBE_TIMEOUT_SECONDS:g} s")
    except httpx.ConnectError:
        return Reach(False, "nothing answers at that address")
    except httpx.HTTPError:
        return Reach(False, "the connection failed")
    return _judged(response.status_code)


def _judged(status: int) -> Reach:
    """A server that answers at all is reachable, unless it refuses the key or is failing (an
    endpoint without a model list answers 404: it is there)."""
    if status in (401, 403):
        return Reach(False, "it refused the API key")
    if status == 503:
        return Reach(False, "it is not ready (still loading, or overloaded)")
    if status >= 500:
        return Reach(False, f"it fails (HTTP {status})")
    return Reach(True)
