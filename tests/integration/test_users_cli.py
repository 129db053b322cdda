"""`artisan users create|list|revoke|rotate` against the real database: a revoked key stops
working at once, its data stays, and a rotated key replaces it."""

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from shared.launcher.stack import Stack

pytestmark = pytest.mark.asyncio(loop_scope="session")
ARTISAN = str(Path(sys.executable).parent / "artisan")


async def artisan(system: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARTISAN_DATABASE_URL": system.database_url}
    return await asyncio.to_thread(
        subprocess.run, [ARTISAN, *args], env=env, capture_output=True, text=True, timeout=60
    )


async def test_a_revoked_key_stops_working_and_a_rotated_one_replaces_it(system: Stack) -> None:
    name = f"maya-{uuid.uuid4().hex[:8]}"
    created = await artisan(system, "users", "create", name)
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip().splitlines()[-1]
    async with httpx.AsyncClient(base_url=system.gateway_url) as client:
        headers = {"Authorization": f"Bearer {key}"}
        assert (await client.get("/v1/files", headers=headers)).status_code == 200

        listed = await artisan(system, "users", "list")
        [row] = [line for line in listed.stdout.splitlines() if line.startswith(name)]
        assert "active" in row and key not in listed.stdout

        revoked = await artisan(system, "users", "revoke", name)
        assert revoked.returncode == 0, revoked.stderr
        assert (await client.get("/v1/files", headers=headers)).status_code == 401
        listed = await artisan(system, "users", "list")
        assert "revoked" in next(line for line in listed.stdout.splitlines() if name in line)

        rotated = await artisan(system, "users", "rotate", name)
        new_key = rotated.stdout.strip().splitlines()[-1]
        assert rotated.returncode == 0 and new_key.startswith("ak_") and new_key != key
        new_headers = {"Authorization": f"Bearer {new_key}"}
        assert (await client.get("/v1/files", headers=new_headers)).status_code == 200


async def test_an_unknown_user_is_an_error_that_points_to_the_list(system: Stack) -> None:
    for command in ("revoke", "rotate"):
        result = await artisan(system, "users", command, "nobody-by-this-name")
        assert result.returncode == 1
        assert "no user named 'nobody-by-this-name'" in result.stderr
        assert "artisan users list" in result.stderr


async def test_a_name_is_one_user(system: Stack) -> None:
    name = f"ana-{uuid.uuid4().hex[:8]}"
    assert (await artisan(system, "users", "create", name)).returncode == 0
    again = await artisan(system, "users", "create", name, "--admin")
    assert again.returncode == 1 and "ak_" not in again.stdout
    assert f"a user named {name!r} already exists" in again.stderr
    assert "choose another name" in again.stderr
    listed = await artisan(system, "users", "list")
    assert len([line for line in listed.stdout.splitlines() if line.startswith(name)]) == 1
