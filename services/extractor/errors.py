"""Why a file cannot become text: each message tells the user what went wrong and what to do."""

from shared.errors import PermanentError


class ExtractionError(PermanentError):
    """A file could not be turned into text; str(error) is a user-facing reason. Permanent:
    reading the same bytes again gives the same answer, so the file fails at once."""


class LimitExceeded(ExtractionError):
    """The file hit one of extraction's limits (time, memory, size); the message names the
    limit and the setting that changes it."""
