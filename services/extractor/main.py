"""Entry point of the extractor service."""

import asyncpg

from services.extractor.child import ExtractionCrashed, extract_in_child
from services.extractor.errors import ExtractionError
from services.extractor.handlers import router
from shared.config import extraction_settings
from shared.service import RefusedToStart, run_service


async def check_child_extraction(_pool: asyncpg.Pool) -> None:
    """Start the fork server the extraction children come from, and refuse to start when a
    child cannot read a one-word file within the limits (a memory limit too small for Python)."""
    try:
        await extract_in_child(b"ready", "start-up check.txt", extraction_settings())
    except (ExtractionError, ExtractionCrashed) as exc:
        raise RefusedToStart(
            f"a child process cannot extract a one-word file within the limits ({exc}); raise "
            "ARTISAN_EXTRACT_MEMORY_MB or ARTISAN_EXTRACT_TIMEOUT_SECONDS"
        ) from exc


def main() -> None:
    run_service("extractor", router, startup_checks=[check_child_extraction], background=True)


if __name__ == "__main__":
    main()
