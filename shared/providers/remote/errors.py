"""How a remote model failure reaches the pipeline: transient (the bus retries later) or permanent
(the message names the setting to fix)."""

import re
from dataclasses import dataclass
from typing import Any

import openai

from shared.errors import ModelRequestRejectedError, ModelUnavailableError

__all__ = ["ModelRequestRejectedError"]  # raised here; its home is shared.errors

# statuses the clients retry with back-off, and that stay transient after the last retry
TRANSIENT_STATUSES = frozenset({408, 409, 429})
_STATUS_PREFIX = re.compile(r"^Error code: \d+ - ")  # how the openai client words its messages
_MAX_DETAIL = 300  # characters of an endpoint's error text kept in our message


@dataclass(frozen=True)
class Endpoint:
    """What a failure message names: where the model lives and which settings configure it."""

    base_url: str
    model: str
    key_setting: str  # e.g. ARTISAN_LLM_API_KEY
    url_setting: str
    model_setting: str
    attempts: int  # HTTP attempts per call: retries + 1
    timeout_seconds: float


def is_transient_status(status: int | None) -> bool:
    return status is not None and (status in TRANSIENT_STATUSES or status >= 500)


def unavailable(endpoint: Endpoint, role: str, reason: str) -> ModelUnavailableError:
    return ModelUnavailableError(
        f"the model at {endpoint.base_url} did not answer the {role} call "
        f"after {endpoint.attempts} attempts: {reason}",
        model=endpoint.model,
        role=role,
    )


def rejected(endpoint: Endpoint, role: str, status: int, detail: str) -> ModelRequestRejectedError:
    """A clear, actionable message for a 4xx that retrying cannot fix."""
    where = f"the model endpoint at {endpoint.base_url}"
    if status == 401:
        message = f"{where} rejected the API key ({endpoint.key_setting})"
    elif status == 403:
        message = (
            f"{where} refused this API key access to {endpoint.model!r} ({endpoint.key_setting})"
        )
    elif status == 404:
        message = (
            f"{where} has no model {endpoint.model!r} or no such path "
            f"(check {endpoint.model_setting} and {endpoint.url_setting})"
        )
    else:
        message = f"{where} rejected the {role} request (HTTP {status})"
    full = f"{message}: {_short(detail)}" if detail else message
    return ModelRequestRejectedError(full, model=endpoint.model, role=role)


def from_openai_error(exc: openai.APIError, endpoint: Endpoint, role: str) -> Exception:
    """The pipeline's error for what the openai client raised after its own retries."""
    if isinstance(exc, openai.APITimeoutError):
        return unavailable(endpoint, role, f"no answer within {endpoint.timeout_seconds:g} s")
    if isinstance(exc, openai.APIConnectionError):
        return unavailable(endpoint, role, f"connection failed ({_cause(exc)})")
    if isinstance(exc, openai.APIStatusError):
        detail = _STATUS_PREFIX.sub("", exc.message)  # we name the status ourselves
        if is_transient_status(exc.status_code):
            failed = unavailable(endpoint, role, f"HTTP {exc.status_code} {_short(detail)}")
            return with_status(failed, exc.status_code)
        return with_status(rejected(endpoint, role, exc.status_code, detail), exc.status_code)
    # e.g. a response body the client could not parse: the endpoint misbehaved this time
    return unavailable(endpoint, role, _short(str(exc)))


def from_voyage_error(exc: Exception, endpoint: Endpoint, role: str) -> Exception:
    """The pipeline's error for a voyageai.error.VoyageError after our retries."""
    from voyageai import error

    if isinstance(exc, error.Timeout):
        return unavailable(endpoint, role, f"no answer within {endpoint.timeout_seconds:g} s")
    if isinstance(exc, error.APIConnectionError):
        return unavailable(endpoint, role, f"connection failed ({_cause(exc)})")
    status = getattr(exc, "http_status", None)
    if isinstance(exc, error.AuthenticationError):
        status = 401  # also raised before any request when no key is configured
    detail = str(getattr(exc, "user_message", None) or exc)
    if status is not None and 400 <= status < 500 and not is_transient_status(status):
        return with_status(rejected(endpoint, role, status, detail), status)
    label = f"HTTP {status} " if status else ""
    return with_status(unavailable(endpoint, role, f"{label}{_short(detail)}"), status)


def with_status(error: Exception, status: int | None) -> Exception:
    """The endpoint's HTTP status kept on the error, for whoever tells of it without the
    endpoint's text (Settings' Test connection): a cause is not always kept on the way up."""
    error.http_status = status  # type: ignore[attr-defined]
    return error


def voyage_is_transient(exc: BaseException) -> bool:
    """Whether another attempt may succeed: rate limits, 5xx, timeouts, dropped connections."""
    from voyageai import error

    if isinstance(exc, error.Timeout | error.APIConnectionError | error.TryAgain):
        return True
    if isinstance(exc, error.RateLimitError | error.ServiceUnavailableError | error.ServerError):
        return True
    return isinstance(exc, error.VoyageError) and is_transient_status(exc.http_status)


def _cause(exc: BaseException) -> str:
    """The innermost reason (e.g. 'Connection refused'), not the client's generic wrapper text."""
    inner: Any = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    return _short(str(inner) or type(inner).__name__)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"
