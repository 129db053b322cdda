"""Ask the context service over NATS request/reply: a bundle (the chat service and the gateway's
preview) or the ranked passages of a question (the gateway's search)."""

import asyncio
import time

import nats.errors
from faststream.nats import NatsBroker
from pydantic import BaseModel

from shared.contracts import ContextBundle, ContextRequest, Request, SearchRequest, SearchResults

ERROR_HEADER = "artisan-error"  # set on a reply that carries a failure instead of an answer
START_HINT = "start it with `artisan up` (or `artisan run context`)"
_NO_RESPONDER_PAUSE = 0.25  # seconds between asks while no context service has subscribed


class ContextUnavailable(Exception):
    """No context service answered: none is running, or none replied in time."""


class ContextBuildFailed(Exception):
    """The context service answered with an error (e.g. the database is down)."""


async def request_context(
    broker: NatsBroker,
    request: ContextRequest,
    timeout: float = 5.0,  # noqa: ASYNC109 - the NATS request carries it to the server
) -> ContextBundle:
    """The ContextBundle for `request`.

    Raises ContextUnavailable when no context service replies (no responders, or the timeout),
    ContextBuildFailed when one replies with an error.
    """
    body = await _ask(broker, request, Request.CONTEXT_BUILD, timeout)
    return ContextBundle.model_validate_json(body)


async def request_search(
    broker: NatsBroker,
    request: SearchRequest,
    timeout: float = 5.0,  # noqa: ASYNC109 - the NATS request carries it to the server
) -> SearchResults:
    """The user's passages ranked for `request.query`; raises as request_context does."""
    body = await _ask(broker, request, Request.CONTEXT_SEARCH, timeout)
    return SearchResults.model_validate_json(body)


async def _ask(
    broker: NatsBroker,
    request: BaseModel,
    subject: Request,
    timeout: float,  # noqa: ASYNC109 - the NATS request carries it to the server
) -> bytes:
    """The body of the context service's reply on `subject`; its failures as exceptions. A
    service still starting (loading its embedding model) has no responder yet: asked again
    within the same timeout, so a question sent as `artisan up` finishes is not refused."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                message = await broker.request(
                    request, subject.value, timeout=max(deadline - time.monotonic(), 0.1)
                )
                break
            except nats.errors.NoRespondersError:
                if time.monotonic() + _NO_RESPONDER_PAUSE >= deadline:
                    raise
                await asyncio.sleep(_NO_RESPONDER_PAUSE)
    except nats.errors.NoRespondersError as exc:
        raise ContextUnavailable(f"The context service is not running: {START_HINT}.") from exc
    except TimeoutError as exc:  # nats.errors.TimeoutError is one too
        raise ContextUnavailable(
            f"No context service replied within {timeout:.1f} s: is it running? {START_HINT}."
        ) from exc
    error = (message.headers or {}).get(ERROR_HEADER)
    if error:
        raise ContextBuildFailed(error)
    return message.body
