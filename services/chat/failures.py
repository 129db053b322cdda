"""An answer that failed, said in words the asker can act on. The provider's own message (its
address, its error body, a setting's name) and our exception's name stay in the chat service's
log: the asker learns what happened, and who can do what about it."""

from shared.errors import ModelOutputError, ModelTooSlowError, ModelUnavailableError
from shared.providers.remote import ModelRequestRejectedError

TRY_AGAIN = "Try again in a moment"
ADMIN_FIX = "if it keeps happening, the admin of this Artisan can"


def in_words(exc: Exception, model: str) -> str:
    """What the asker is told about a failed answer written by `model` (the web client adds
    that nothing was saved)."""
    if isinstance(exc, ModelTooSlowError):
        return (
            f"The language model ({model}) took too long to write the answer, so it was stopped."
            f" {TRY_AGAIN}; {ADMIN_FIX} choose a faster model in Settings."
        )
    if isinstance(exc, ModelOutputError):
        return (
            f"The language model ({model}) answered in a form Artisan could not use."
            f" {TRY_AGAIN}; {ADMIN_FIX} choose a model that follows instructions more closely."
        )
    if isinstance(exc, ModelRequestRejectedError):
        return (
            f"The language model's service refused the request for {model}: its API key, model"
            " name or address is wrong. The admin of this Artisan can check them with Test"
            " connection in Settings."
        )
    if isinstance(exc, ModelUnavailableError):
        return (
            f"The language model ({model}) did not answer: it may be down or busy."
            f" {TRY_AGAIN}; {ADMIN_FIX} check it in Settings."
        )
    if isinstance(exc, TimeoutError):
        return f"Gathering your files and memory for the answer took too long. {TRY_AGAIN}."
    return f"Something went wrong while answering. {TRY_AGAIN}."
