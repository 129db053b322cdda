"""The model_settings table: the one row of models the admin connected, its keys sealed."""

import logging
from dataclasses import dataclass
from uuid import UUID

import asyncpg
from pydantic import SecretStr

from shared.models.saved import SavedModels
from shared.secret_box import SecretsKeyMissing, SecretUnreadable, seal, unseal

logger = logging.getLogger(__name__)
Conn = asyncpg.Connection | asyncpg.Pool
CHANGED_CHANNEL = "artisan_models_saved"  # NOTIFY payload: the new version (never a key)
_KEYS = ("llm_api_key", "embed_api_key")


@dataclass(frozen=True)
class StoredModels:
    version: int
    models: SavedModels
    unreadable: tuple[str, ...] = ()  # keys saved but not unsealed here (another secrets key)


async def current_version(conn: Conn) -> int:
    """The version of the saved models; 0 while nothing was saved (the environment's rule)."""
    return await conn.fetchval("SELECT version FROM model_settings") or 0


async def load(conn: Conn) -> StoredModels | None:
    row = await conn.fetchrow("SELECT * FROM model_settings")
    if row is None:
        return None
    fields = {name: row[name] for name in SavedModels.model_fields if name not in _KEYS}
    unreadable = []
    for name in _KEYS:
        if row[name] is None:
            continue
        try:
            fields[name] = SecretStr(unseal(row[name]))
        except (SecretUnreadable, SecretsKeyMissing) as exc:
            logger.error("the saved %s is not used: %s", name, exc)
            unreadable.append(name)
    return StoredModels(row["version"], SavedModels(**fields), tuple(unreadable))


async def save(conn: asyncpg.Connection, models: SavedModels, *, updated_by: UUID) -> int:
    """Store the models (keys sealed, never in plain text) and tell every process once the
    caller's transaction commits; returns the new version."""
    sealed = {
        name: seal(key.get_secret_value()) if (key := getattr(models, name)) else None
        for name in _KEYS
    }
    version = await conn.fetchval(
        """
        INSERT INTO model_settings (version, llm_base_url, llm_model, llm_api_key, embed_provider,
                                    embed_base_url, embed_model, embed_api_key, weather_tool,
                                    llm_roles, updated_by)
        VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
        ON CONFLICT (singleton) DO UPDATE SET
            version = model_settings.version + 1, llm_base_url = $1, llm_model = $2,
            llm_api_key = $3, embed_provider = $4, embed_base_url = $5, embed_model = $6,
            embed_api_key = $7, weather_tool = $8, llm_roles = $9, updated_by = $10,
            updated_at = now()
        RETURNING version
        """,
        models.llm_base_url,
        models.llm_model,
        sealed["llm_api_key"],
        models.embed_provider,
        models.embed_base_url,
        models.embed_model,
        sealed["embed_api_key"],
        models.weather_tool,
        models.llm_roles,
        updated_by,
    )
    await conn.execute("SELECT pg_notify($1, $2)", CHANGED_CHANNEL, str(version))
    return version
