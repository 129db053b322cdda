"""/v1/settings/models: which models answer (every user), and connecting others (the admin).

Under /v1/settings, not /v1/models: that path is the OpenAI-compatible model list's, where
/v1/models/{model} names a model."""

from typing import Any

from fastapi import APIRouter

from services.gateway.auth import AdminUser, CurrentUser
from services.gateway.deps import Broker, Pool
from services.gateway.models import endpoints
from services.gateway.models import setup as model_setup
from services.gateway.models.connection_test import check_connection
from services.gateway.models.schemas import (
    ConnectionReport,
    ModelSettingsUpdate,
    ModelSettingsView,
    ModelStatus,
)
from services.gateway.models.status import status as status_of
from services.gateway.schemas import ErrorResponse
from shared.models import live

router = APIRouter(tags=["settings"])
_UNAUTHORIZED: dict[int | str, dict[str, Any]] = {401: {"model": ErrorResponse}}
_ADMIN_ONLY: dict[int | str, dict[str, Any]] = {
    **_UNAUTHORIZED,
    403: {"model": ErrorResponse, "description": "not the admin of this Artisan"},
}


@router.get("/v1/settings/models/status", response_model=ModelStatus, responses=_UNAUTHORIZED)
async def model_status(user: CurrentUser) -> ModelStatus:
    """Which models answer, and offline, what that means and how to get written answers."""
    await live.catch_up()  # a replica that missed an announcement looks again
    return await status_of(user)


@router.get("/v1/settings/models", response_model=ModelSettingsView, responses=_ADMIN_ONLY)
async def get_model_settings(admin: AdminUser, pool: Pool) -> ModelSettingsView:
    """The models in use as Settings shows them; a key only as whether it is set."""
    await live.catch_up()
    return await model_setup.view(pool)


@router.put(
    "/v1/settings/models",
    response_model=ModelSettingsView,
    responses={
        **_ADMIN_ONLY,
        409: {
            "model": ErrorResponse,
            "description": "the embedding model changes and what is stored must be re-embedded"
            ' first (send "reembed": true), or no secrets key to store a key with',
        },
        422: {
            "model": ErrorResponse,
            "description": "an invalid setting, or a model address the rules refuse (link-local,"
            " cloud metadata, or a host ARTISAN_MODEL_HOSTS_ALLOWED does not name)",
        },
    },
)
async def put_model_settings(
    update: ModelSettingsUpdate, admin: AdminUser, pool: Pool, broker: Broker
) -> ModelSettingsView:
    """Use these models from the next call on, in every service, without a restart."""
    return await model_setup.save(pool, broker, update, admin)


@router.post(
    "/v1/settings/models/test",
    response_model=ConnectionReport,
    responses={**_ADMIN_ONLY, 422: {"model": ErrorResponse}},
)
async def check_model_settings(update: ModelSettingsUpdate, admin: AdminUser) -> ConnectionReport:
    """One tiny real call to each model these settings name (a saved key is used where the
    update leaves it out); nothing is saved. Each check ends within about 12 s and says what
    happened (status, format, models listed, latency, network), never what the endpoint wrote."""
    models = model_setup.candidate(update)
    settings = model_setup.effective(models)
    await endpoints.vetted(settings)  # an address refused on save is a 422 here too
    model_setup.new_space(settings)  # a choice that cannot run at all is a 422, as on save
    return await check_connection(settings)
