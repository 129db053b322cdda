"""Ask the context service for a bundle over NATS request/reply (used by the chat service and the
gateway's preview)."""

import nats.errors
from faststream.nats import NatsBroker

from shared.contracts import ContextBundle, ContextRequest, Request

ERROR_HEADER = "artisan-error"  # set on a reply that carries a failure instead of a bundle
START_HINT = "start it with `artisan up` (or `artisan run context`)"


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
    try:
        message = await broker.request(request, Request.CONTEXT_BUILD.value, timeout=timeout)
    except nats.errors.NoRespondersError as exc:
        raise ContextUnavailable(f"The context service is not running: {START_HINT}.") from exc
    except TimeoutError as exc:  # nats.errors.TimeoutError is one too
        raise ContextUnavailable(
            f"No context service replied within {timeout:.1f} s: is it running? {START_HINT}."
        ) from exc
    error = (message.headers or {}).get(ERROR_HEADER)
    if error:
        raise ContextBuildFailed(error)
    return ContextBundle.model_validate_json(message.body)
