"""An answer that failed, said in words the asker can act on. The provider's own message (its
address, its error body, a setting's name) and our exception's name stay in the chat service's
log: the asker learns what happened, and who can do what about it. What a failing model did is
worded in shared.models.words, as for a file the pipeline could not read."""

import traceback

from shared.errors import ModelFailure
from shared.models.words import ADMIN, TRY_AGAIN, failure_of
from shared.secrets import redact


def in_words(exc: Exception, model: str) -> str:
    """What the asker is told about a failed answer written by `model` (the web client adds
    that nothing was saved)."""
    if isinstance(exc, ModelFailure):
        return _model_failed(exc, exc.model or model)
    if isinstance(exc, TimeoutError):
        return f"Gathering your files and memory for the answer took too long. {TRY_AGAIN}."
    return f"Something went wrong while answering. {TRY_AGAIN}."


def logged(exc: BaseException) -> str:
    """The failure as the log keeps it for the admin: the whole traceback, the provider's
    address and reply included, but with any key or password it echoes redacted."""
    return redact("".join(traceback.format_exception(exc))).text


def _model_failed(exc: ModelFailure, model: str) -> str:
    failure = failure_of(exc)
    told = f"The language model ({model}) {failure.happened}."
    if failure.retry_helps:
        return f"{told} {TRY_AGAIN}; if it keeps happening, the {ADMIN} can {failure.fix}."
    return f"{told} The {ADMIN} can {failure.fix}."
