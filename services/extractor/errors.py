"""The one error extraction raises: its message tells the user what went wrong and what to do."""


class ExtractionError(Exception):
    """A file could not be turned into text; str(error) is a user-facing reason."""
