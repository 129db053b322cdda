"""Errors that cross module boundaries and decide how the pipeline treats a failure."""

from typing import Self

# a service's exit status when it refuses to start (EX_CONFIG): its configuration, not a crash,
# so the launcher does not restart it
EXIT_REFUSED = 78


class PermanentError(Exception):
    """Retrying cannot help (bad input, a model that keeps answering wrongly); the message says
    what happened and what the user can do."""


class ModelFailure(Exception):
    """A model call that failed. Its message is for the service's log (it may hold the
    endpoint's address and error body); `model` and `role` are what the people told about it
    need: which model, doing which work (shared.models.words says it in words)."""

    def __init__(self, message: str, *, model: str = "", role: str = "") -> None:
        super().__init__(message)
        self.model, self.role = model, role

    def named(self, model: str, role: str) -> Self:
        """Fill in the model and role when whoever raised it did not know them."""
        self.model, self.role = self.model or model, self.role or role
        return self


class ModelOutputError(ModelFailure, PermanentError):
    """The model's answer failed validation, also after one repair attempt."""


class NotAChatReplyError(ModelOutputError):
    """The endpoint answered with something that is not an OpenAI chat reply (a web page)."""


class ModelTooSlowError(ModelOutputError):
    """The model did not finish a bounded call by its deadline: the same call would stall again,
    so it is not retried (a role with an offline rule of the same kind falls back to it)."""


class ModelRequestRejectedError(ModelFailure, PermanentError):
    """The endpoint refused the request itself (wrong key, unknown model, a request it cannot
    serve); retrying the same request cannot help."""


class ModelUnavailableError(ModelFailure):
    """The model endpoint did not answer usefully (timeouts, 429/5xx) after the client's own
    retries; transient, so the bus redelivers the message before the file fails."""


class ConfigurationChanged(RuntimeError):
    """The shared configuration moved on while this process ran (e.g. `artisan reembed`); the
    pipeline puts the message back and stops the process, whose restart checks the settings."""
