"""Errors that cross module boundaries and decide how the pipeline treats a failure."""

# a service's exit status when it refuses to start (EX_CONFIG): its configuration, not a crash,
# so the launcher does not restart it
EXIT_REFUSED = 78


class PermanentError(Exception):
    """Retrying cannot help (bad input, a model that keeps answering wrongly); the message says
    what happened and what the user can do."""


class ModelOutputError(PermanentError):
    """The model's answer failed validation, also after one repair attempt."""


class ModelTooSlowError(ModelOutputError):
    """The model did not finish a bounded call by its deadline: the same call would stall again,
    so it is not retried (a role with an offline rule of the same kind falls back to it)."""


class ModelUnavailableError(Exception):
    """The model endpoint did not answer usefully (timeouts, 429/5xx) after the client's own
    retries; transient, so the bus redelivers the message before the file fails."""


class ConfigurationChanged(RuntimeError):
    """The shared configuration moved on while this process ran (e.g. `artisan reembed`); the
    pipeline puts the message back and stops the process, whose restart checks the settings."""
