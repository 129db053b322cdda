"""The weather tool over real HTTP against a server speaking Open-Meteo's wire format: off
unless switched on, the fixed path and parameters sent, bad calls answered with what to fix;
and the offline provider's choice of it from a question."""

import json
from collections.abc import Iterator

import pytest

from services.chat.tools import settings
from services.chat.tools.toolbox import WEATHER, ChatToolBox
from shared.config import model_settings
from shared.providers.local.tool_choice import planned_calls, weather_request
from tests.fakes.open_meteo import FakeOpenMeteo

ARGS = {"latitude": 52.52, "longitude": 13.41, "start_date": "2024-03-01", "end_date": "2024-03-12"}


@pytest.fixture
def open_meteo(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as fake:
        monkeypatch.setenv("ARTISAN_WEATHER_TOOL", "true")
        monkeypatch.setenv("ARTISAN_WEATHER_BASE_URL", fake.base_url)
        settings.tool_settings.cache_clear()
        model_settings.cache_clear()
        yield fake
    settings.tool_settings.cache_clear()
    model_settings.cache_clear()


def _toolbox() -> ChatToolBox:
    return ChatToolBox(None, user_id=None, turn_id=None, attachments=[])  # type: ignore[arg-type]


def test_the_weather_tool_is_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARTISAN_WEATHER_TOOL", raising=False)
    model_settings.cache_clear()
    assert _toolbox().specs == []


async def test_statistics_come_from_the_archive_with_fixed_parameters(
    open_meteo: FakeOpenMeteo,
) -> None:
    result = await _toolbox().call(WEATHER, json.dumps({**ARGS, "place": "Berlin"}))
    assert "mean 11.82 °C over 11 of 12 days (1 missing)" in result
    assert "2024-03-12 (30.0 °C, z = 3.16)" in result
    [sent] = open_meteo.requests
    assert sent == {
        "latitude": "52.5200",
        "longitude": "13.4100",
        "start_date": "2024-03-01",
        "end_date": "2024-03-12",
        "daily": "temperature_2m_mean",
        "timezone": "UTC",
    }


async def test_a_bad_call_is_answered_with_what_to_fix_and_sends_nothing(
    open_meteo: FakeOpenMeteo,
) -> None:
    result = await _toolbox().call(WEATHER, json.dumps({**ARGS, "latitude": "52.52 OR 1=1"}))
    assert result.startswith("Error: invalid arguments for weather_statistics: latitude")
    assert "not JSON" in await _toolbox().call(WEATHER, "import os")
    assert open_meteo.requests == []


def test_the_offline_provider_reads_a_place_and_a_month_from_the_question(
    open_meteo: FakeOpenMeteo,
) -> None:
    asked = weather_request("What was the weather in Berlin in March 2024?")
    assert asked == {
        "latitude": 52.52,
        "longitude": 13.41,
        "start_date": "2024-03-01",
        "end_date": "2024-03-31",
        "place": "Berlin",
    }
    [call] = planned_calls("Temperatures at 48.85, 2.35 from 2024-01-01 to 2024-01-31?", _toolbox())
    assert call.name == WEATHER and json.loads(call.arguments)["latitude"] == 48.85
    assert planned_calls("What was the weather like?", _toolbox()) == []  # no place, no range
