"""The weather tool switched on and off in Settings on a running system (real NATS, PostgreSQL
and services, the offline model): the next answer uses it or not, without a restart. Evidence:
the requests a local server speaking Open-Meteo's format received, and the answer."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.helpers import client_for_new_user, own_stack
from tests.integration.test_chat import chat

pytestmark = pytest.mark.asyncio(loop_scope="session")
QUESTION = "What was the weather in Berlin in March 2024?"


@pytest.fixture(scope="module")
def open_meteo() -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as fake:
        yield fake


@pytest.fixture(scope="module")
def weather_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, open_meteo: FakeOpenMeteo
) -> Iterator[Stack]:
    """A system of its own (saving settings must not change the suite's), the switch unset."""
    env = {"ARTISAN_WEATHER_BASE_URL": open_meteo.base_url}
    with own_stack(tmp_path_factory.mktemp("weather-switch"), env, pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture
async def admin(weather_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(weather_system, "weather-admin", admin=True) as client:
        yield client


@pytest.fixture
async def member(weather_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(weather_system, "weather-member") as client:
        yield client


async def switch(admin: httpx.AsyncClient, on: bool) -> dict[str, Any]:
    """Save the models as they are, with the weather tool on or off."""
    current = (await admin.get("/v1/settings/models")).json()
    fields = ("llm_base_url", "llm_model", "embed_provider", "embed_base_url", "embed_model")
    saved = await admin.put(
        "/v1/settings/models", json={**{name: current[name] for name in fields}, "weather_tool": on}
    )
    assert saved.status_code == 200, saved.text
    return saved.json()


async def test_the_switch_in_settings_turns_the_weather_tool_on_and_off_without_a_restart(
    admin: httpx.AsyncClient,
    member: httpx.AsyncClient,
    open_meteo: FakeOpenMeteo,
    weather_system: Stack,
) -> None:
    pids = {p.label: p.process.pid for p in weather_system.supervisor.processes}
    assert (await member.get("/v1/settings/models/status")).json()["weather_tool"] is False
    _, before = await chat(member, persona="gunnar", message=QUESTION)
    assert open_meteo.requests == [] and "Open-Meteo" not in before["answer"]

    assert (await member.put("/v1/settings/models", json={"weather_tool": True})).status_code == 403
    assert (await switch(admin, on=True))["weather_tool"] is True
    assert (await member.get("/v1/settings/models/status")).json()["weather_tool"] is True
    _, on = await chat(member, persona="gunnar", message=QUESTION)
    [sent] = open_meteo.requests
    assert (sent["start_date"], sent["end_date"], sent["latitude"]) == (
        "2024-03-01",
        "2024-03-31",
        "52.5200",
    )
    assert "Open-Meteo" in on["answer"], on["answer"]

    assert (await switch(admin, on=False))["weather_tool"] is False
    _, off = await chat(member, persona="gunnar", message=QUESTION)
    assert len(open_meteo.requests) == 1 and "Open-Meteo" not in off["answer"]
    assert {p.label: p.process.pid for p in weather_system.supervisor.processes} == pids
