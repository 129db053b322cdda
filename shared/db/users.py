"""The users table: API keys are stored only as sha256 hashes; a name is one user."""

import hashlib
import secrets
import uuid
from dataclasses import dataclass

import asyncpg

KEY_PREFIX = "ak_"


@dataclass(frozen=True)
class User:
    id: uuid.UUID
    name: str
    is_admin: bool = False  # may connect the instance's models (Settings)


class UserNameTaken(ValueError):
    """Another user already has this name."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"a user named {name!r} already exists (see `artisan users list`): choose another name"
        )


def hash_api_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def new_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


async def create_user(
    conn: asyncpg.Connection | asyncpg.Pool, *, name: str, admin: bool = False, local: bool = False
) -> tuple[User, str]:
    """Create a user (`local`: the one of `artisan up`); returns it with its API key, which is
    shown once and never stored. UserNameTaken if the name is another user's."""
    api_key = new_api_key()
    user_id = uuid.uuid4()
    try:
        await conn.execute(
            "INSERT INTO users (id, name, api_key_hash, is_admin, is_local)"
            " VALUES ($1, $2, $3, $4, $5)",
            user_id,
            name,
            hash_api_key(api_key),
            admin,
            local,
        )
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name == "users_name_unique":
            raise UserNameTaken(name) from None
        raise
    return User(id=user_id, name=name, is_admin=admin), api_key


async def find_user_by_api_key(
    conn: asyncpg.Connection | asyncpg.Pool, *, api_key: str
) -> User | None:
    row = await conn.fetchrow(
        "SELECT id, name, is_admin FROM users WHERE api_key_hash = $1", hash_api_key(api_key)
    )
    return User(id=row["id"], name=row["name"], is_admin=row["is_admin"]) if row else None


async def find_user_by_name(conn: asyncpg.Connection | asyncpg.Pool, *, name: str) -> User | None:
    row = await conn.fetchrow("SELECT id, name, is_admin FROM users WHERE name = $1", name)
    return User(id=row["id"], name=row["name"], is_admin=row["is_admin"]) if row else None


async def find_local_user(conn: asyncpg.Connection | asyncpg.Pool) -> User | None:
    """The local user of `artisan up`, known by its mark, whatever its name."""
    row = await conn.fetchrow("SELECT id, name, is_admin FROM users WHERE is_local")
    return User(id=row["id"], name=row["name"], is_admin=row["is_admin"]) if row else None


async def rotate_api_key(conn: asyncpg.Connection | asyncpg.Pool, *, user_id: uuid.UUID) -> str:
    """Give a user a new key (the old one stops working); returns it."""
    api_key = new_api_key()
    await conn.execute(
        "UPDATE users SET api_key_hash = $2 WHERE id = $1", user_id, hash_api_key(api_key)
    )
    return api_key


# a revoked user's hash: unique, and no sha256 hex digest ever equals it
_REVOKED = "revoked:"


async def list_users(conn: asyncpg.Connection | asyncpg.Pool) -> list[asyncpg.Record]:
    """Every user with when it was created, whether its key works, and how many files it has."""
    return await conn.fetch(
        """
        SELECT u.id, u.name, u.created_at, u.is_admin,
               NOT u.api_key_hash LIKE $1 || '%' AS active,
               (SELECT count(*) FROM files f WHERE f.user_id = u.id) AS files
        FROM users u ORDER BY u.created_at, u.name
        """,
        _REVOKED,
    )


async def revoke_api_key(conn: asyncpg.Connection | asyncpg.Pool, *, name: str) -> int:
    """Make the key of the user called `name` stop working (its data stays); how many (0, 1)."""
    result = await conn.execute(
        "UPDATE users SET api_key_hash = $2 || id::text WHERE name = $1", name, _REVOKED
    )
    return int(result.split()[-1])


async def set_admin(
    conn: asyncpg.Connection | asyncpg.Pool, *, name: str, admin: bool = True
) -> int:
    """Make the user called `name` an admin of this instance (or not); how many (0 or 1)."""
    result = await conn.execute("UPDATE users SET is_admin = $2 WHERE name = $1", name, admin)
    return int(result.split()[-1])
