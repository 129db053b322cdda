"""The weather tool's guard rails and arithmetic: only numbers and ISO dates of a past range of
at most a year get through, each refusal saying what to fix; statistics of known series."""

import pytest
from pydantic import ValidationError

from services.chat.tools.weather import WeatherArgs, explain, weather_stats

GOOD = {"latitude": 52.52, "longitude": 13.41, "start_date": "2024-03-01", "end_date": "2024-03-31"}


def _error(**changes: object) -> str:
    with pytest.raises(ValidationError) as caught:
        WeatherArgs.model_validate({**GOOD, **changes})
    return str(caught.value)


def test_good_arguments_pass() -> None:
    args = WeatherArgs.model_validate(GOOD)
    assert (args.end - args.start).days == 30


@pytest.mark.parametrize("latitude", ["52.52", "52.52; rm -rf /", None, True])
def test_a_non_numeric_latitude_is_refused(latitude: object) -> None:
    assert "latitude" in _error(latitude=latitude)


def test_out_of_range_coordinates_are_refused() -> None:
    assert "less than or equal to 90" in _error(latitude=91)
    assert "greater than or equal to -180" in _error(longitude=-181)


@pytest.mark.parametrize("day", ["March 1 2024", "2024-3-1", "1709251200", "2024-03-01T00:00"])
def test_dates_must_be_iso(day: str) -> None:
    assert "start_date" in _error(start_date=day)


def test_an_impossible_date_is_refused() -> None:
    assert "day is out of range" in _error(end_date="2024-02-30")


def test_a_range_over_a_year_is_refused_saying_what_to_do() -> None:
    assert "ask for a year or less" in _error(start_date="2022-01-01", end_date="2024-01-01")


def test_a_reversed_or_future_range_is_refused() -> None:
    assert "give the earlier date first" in _error(start_date="2024-04-01")
    assert "past days only" in _error(start_date="2999-01-01", end_date="2999-01-02")


def test_extra_arguments_such_as_a_url_are_refused() -> None:
    assert "Extra inputs are not permitted" in _error(url="http://evil.example/")


def test_statistics_of_a_known_series() -> None:
    days = [f"2024-03-{d:02d}" for d in range(1, 13)]
    values: list[float | None] = [10.0] * 10 + [None, 30.0]
    stats = weather_stats(days, values)
    assert stats.days == 12 and stats.missing == 1
    # 10 tens and a thirty: mean 130/11, population std 5.75
    assert stats.mean == pytest.approx(11.82, abs=0.01)
    assert stats.volatility == pytest.approx(5.75, abs=0.01)
    assert stats.anomalies == [("2024-03-12", 30.0, pytest.approx(3.16, abs=0.01))]


def test_a_flat_or_empty_series_has_no_anomalies() -> None:
    assert weather_stats(["a", "b"], [5.0, 5.0]).anomalies == []
    empty = weather_stats(["a"], [None])
    assert empty.mean is None and empty.missing == 1


def test_the_explanation_states_every_figure() -> None:
    args = WeatherArgs.model_validate({**GOOD, "place": "Berlin"})
    days = [f"2024-03-{d:02d}" for d in range(1, 13)]
    text = explain(args, weather_stats(days, [10.0] * 10 + [None, 30.0]))
    assert "Berlin" in text and "mean 11.82 °C over 11 of 12 days (1 missing)" in text
    assert "volatility (standard deviation) 5.75 °C" in text
    assert "2024-03-12 (30.0 °C, z = 3.16)" in text
