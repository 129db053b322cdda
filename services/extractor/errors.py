"""Why a file cannot become text: each message tells the user what went wrong and what to do."""

from shared.errors import PermanentError


class ExtractionError(PermanentError):
    """A file could not be turned into text; str(error) is a user-facing reason. Permanent:
    reading the same bytes again gives the same answer, so the file fails at once."""


class LimitExceeded(ExtractionError):
    """The file hit one of extraction's limits (time, memory, size); the message names the
    limit and the setting that changes it."""


def too_much_text(chars: int, max_chars: int, *, partly_read: bool = False) -> LimitExceeded:
    """The refusal of a file whose text is longer than one file may hold (`partly_read`: reading
    stopped at `chars`, so the file holds at least that many)."""
    # every later stage (chunks, summaries, vectors) costs in proportion to the text, and a
    # .docx, .xlsx or .pdf can hold far more text than its upload size suggests
    held = f"at least {chars:,}" if partly_read else f"{chars:,}"
    return LimitExceeded(
        f"the file holds {held} characters of text, more than the {max_chars:,} one file may "
        "hold (ARTISAN_EXTRACT_MAX_TEXT_CHARS); split it into smaller files and upload those"
    )
