"""How the gateway's dispatcher moves stored work to the bus (dispatcher.py)."""

from functools import lru_cache

from pydantic import Field

from shared.config import _ArtisanSettings


class DispatchSettings(_ArtisanSettings):
    """How stored work reaches the bus (the gateway's dispatcher): fairly, and again if lost."""

    files_in_flight_per_user: int = Field(
        16, ge=1, description="files of one user in the pipeline at once; the rest wait queued"
    )
    # more, a share at a time, while the pipeline keeps up and no other user's files wait
    files_in_flight_alone: int = Field(256, ge=1, description="files in flight of a lone user")
    turns_in_flight_per_user: int = Field(
        32, ge=1, description="turns of one user on their way into the journal at once"
    )
    redrive_after_seconds: float = Field(
        30.0,
        gt=0,
        description="work quiet this long while the bus holds nothing for it is re-driven",
    )
    redrive_anyway_after_seconds: float = Field(
        3600.0, gt=0, description="work quiet this long is re-driven even on a busy bus"
    )
    max_redrives: int = Field(3, ge=0, description="re-drives before the work fails instead")


@lru_cache
def dispatch_settings() -> DispatchSettings:
    return DispatchSettings()
