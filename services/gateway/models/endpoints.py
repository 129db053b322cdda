"""The model endpoints some settings send text to, checked before anything is saved or sent there:
shared/models/hosts.py's rules, with the operator's ARTISAN_MODEL_HOSTS_ALLOWED, as a 422 that
names the endpoint and says what to do."""

from fastapi import HTTPException

from shared.config import ModelSettings
from shared.models.hosts import (
    ModelHostRefused,
    Network,
    Role,
    allowed_hosts,
    checked_host,
    endpoints_of,
    vet,
)

LABELS: dict[Role, str] = {
    "chat": "The language model's base URL",
    "embeddings": "The embeddings base URL",
}


async def vetted(settings: ModelSettings) -> dict[Role, Network]:
    """Where each endpoint is (loopback, private, public, unresolved); a 422 for one refused."""
    found = await _where_each_is(settings)
    for role, place in found.items():
        if isinstance(place, ModelHostRefused):
            raise HTTPException(422, f"{LABELS[role]} {place}.")
    return found  # type: ignore[return-value]


async def shown(settings: ModelSettings) -> dict[Role, Network]:
    """Where each endpoint in use is, for Settings to show; one the rules refuse (saved before
    they applied) is left out: refusals() names it."""
    found = await _where_each_is(settings)
    return {role: place for role, place in found.items() if isinstance(place, str)}


async def _where_each_is(settings: ModelSettings) -> dict[Role, Network | ModelHostRefused]:
    allowed = allowed_hosts(settings.model_hosts_allowed)
    found: dict[Role, Network | ModelHostRefused] = {}
    for role, url in endpoints_of(settings).items():
        try:
            found[role] = await vet(url, allowed=allowed)
        except ModelHostRefused as refused:
            found[role] = refused
    return found


def refusals(settings: ModelSettings) -> list[str]:
    """What the rules say of the endpoints in use (saved before they applied, or before the
    operator narrowed ARTISAN_MODEL_HOSTS_ALLOWED), without resolving names: for the status."""
    allowed = allowed_hosts(settings.model_hosts_allowed)
    said = []
    for role, url in endpoints_of(settings).items():
        try:
            checked_host(url, allowed)
        except ModelHostRefused as refused:
            said.append(f"{LABELS[role]} in use {refused}. It is used until it is changed.")
    return said
