"""Fixtures of the integration tests that change the whole instance (the models saved in
Settings): a system of their own for each module that asks, its admin and a member."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.helpers import client_for_new_user, own_stack


@pytest.fixture(scope="module")
def settings_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path
) -> Iterator[Stack]:
    """A system of its own: saving models here must not change the suite's shared one."""
    with own_stack(tmp_path_factory.mktemp("settings"), pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture
async def admin(settings_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(settings_system, "settings-admin", admin=True) as client:
        yield client


@pytest.fixture
async def member(settings_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(settings_system, "settings-member") as client:
        yield client
