"""Safe analytics (seed 001): daily mean temperature statistics for a place and a date range,
from Open-Meteo's archive.

Safe by construction: the endpoint and its parameters are fixed here, the model supplies only
numbers and ISO dates (validated before anything is sent), the request has a fixed timeout, the
answer read is bounded in size, and the analysis is fixed arithmetic — nothing the model writes
is ever run.
"""

import math
import statistics
from datetime import date

import httpx
from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.chat.tools.settings import tool_settings

ARCHIVE_PATH = "/v1/archive"
VARIABLE = "temperature_2m_mean"
TIMEOUT_SECONDS = 10.0
MAX_DAYS = 366
MAX_RESPONSE_BYTES = 512 * 1024  # a year of daily values is ~10 KB
ANOMALY_Z = 2.0
ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"


class WeatherArgs(BaseModel):
    """What the model may ask for: numbers and ISO dates, nothing else."""

    model_config = ConfigDict(extra="forbid")

    latitude: float = Field(ge=-90, le=90, strict=True, description="decimal degrees, -90..90")
    longitude: float = Field(ge=-180, le=180, strict=True, description="decimal degrees, -180..180")
    start_date: str = Field(pattern=ISO_DATE, description="first day, YYYY-MM-DD")
    end_date: str = Field(pattern=ISO_DATE, description="last day, YYYY-MM-DD (at most a year on)")
    place: str = Field("", max_length=80, description="the place's name, for the explanation")

    @model_validator(mode="after")
    def _a_past_range_of_at_most_a_year(self) -> "WeatherArgs":
        start, end = self.start, self.end  # raises ValueError on 2024-02-30
        if end < start:
            raise ValueError("end_date is before start_date: give the earlier date first")
        if (end - start).days + 1 > MAX_DAYS:
            raise ValueError(f"the range is longer than {MAX_DAYS} days: ask for a year or less")
        if end >= date.today():
            raise ValueError("end_date must be in the past: the archive holds past days only")
        return self

    @property
    def start(self) -> date:
        return date.fromisoformat(self.start_date)

    @property
    def end(self) -> date:
        return date.fromisoformat(self.end_date)


class WeatherStats(BaseModel):
    days: int
    missing: int
    mean: float | None
    volatility: float | None = Field(description="standard deviation of the daily means")
    anomalies: list[tuple[str, float, float]] = Field(description="(day, value, z-score)")
    unit: str = "°C"


class WeatherUnavailable(Exception):
    """Open-Meteo could not be asked, or answered something else than daily data."""


def weather_stats(days: list[str], values: list[float | None], unit: str = "°C") -> WeatherStats:
    """Missing days, mean, volatility (standard deviation) and days with |z| > 2."""
    present = [(day, v) for day, v in zip(days, values, strict=True) if _is_number(v)]
    numbers = [float(v) for _, v in present]  # type: ignore[arg-type]
    mean = statistics.fmean(numbers) if numbers else None
    spread = statistics.pstdev(numbers) if len(numbers) > 1 else None
    anomalies = []
    if mean is not None and spread:
        for day, value in present:
            z = (float(value) - mean) / spread  # type: ignore[arg-type]
            if abs(z) > ANOMALY_Z:
                anomalies.append((day, float(value), round(z, 2)))  # type: ignore[arg-type]
    return WeatherStats(
        days=len(days),
        missing=len(days) - len(numbers),
        mean=None if mean is None else round(mean, 2),
        volatility=None if spread is None else round(spread, 2),
        anomalies=anomalies,
        unit=unit,
    )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def explain(args: WeatherArgs, stats: WeatherStats) -> str:
    """A short explanation a person can read, with every figure the statistics hold."""
    where = args.place or f"{args.latitude:.2f}, {args.longitude:.2f}"
    span = f"{args.start_date} to {args.end_date}"
    if stats.mean is None:
        return f"Open-Meteo has no daily mean temperatures for {where} from {span}."
    lines = [
        f"Daily mean temperature in {where}, {span} (Open-Meteo archive): "
        f"mean {stats.mean} {stats.unit} over {stats.days - stats.missing} of {stats.days} days"
        f" ({stats.missing} missing); volatility (standard deviation) {stats.volatility} "
        f"{stats.unit}."
    ]
    if stats.anomalies:
        listed = ", ".join(f"{d} ({v} {stats.unit}, z = {z})" for d, v, z in stats.anomalies)
        lines.append(f"Anomalies (|z| > {ANOMALY_Z:g}): {listed}.")
    else:
        lines.append(f"No day lies more than {ANOMALY_Z:g} standard deviations from the mean.")
    return " ".join(lines)


async def fetch_daily(args: WeatherArgs) -> tuple[list[str], list[float | None], str]:
    """The archive's days and daily means; at most MAX_RESPONSE_BYTES are read."""
    params = {
        "latitude": f"{args.latitude:.4f}",
        "longitude": f"{args.longitude:.4f}",
        "start_date": args.start_date,
        "end_date": args.end_date,
        "daily": VARIABLE,
        "timezone": "UTC",
    }
    url = tool_settings().weather_base_url.rstrip("/") + ARCHIVE_PATH
    try:
        async with (
            httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as client,
            client.stream("GET", url, params=params) as response,
        ):
            body = await _bounded_body(response)
    except httpx.HTTPError as exc:
        raise WeatherUnavailable(f"Open-Meteo could not be reached ({type(exc).__name__})") from exc
    return _daily_series(response.status_code, body)


async def _bounded_body(response: httpx.Response) -> bytes:
    read = bytearray()
    async for piece in response.aiter_bytes():
        read += piece
        if len(read) > MAX_RESPONSE_BYTES:
            raise WeatherUnavailable("Open-Meteo's answer was larger than a year of daily data")
    return bytes(read)


def _daily_series(status: int, body: bytes) -> tuple[list[str], list[float | None], str]:
    try:
        data = httpx.Response(status, content=body).json()
    except ValueError as exc:
        raise WeatherUnavailable(f"Open-Meteo answered HTTP {status} without JSON") from exc
    if status != 200 or not isinstance(data, dict) or data.get("error"):
        reason = data.get("reason") if isinstance(data, dict) else None
        raise WeatherUnavailable(f"Open-Meteo refused the request (HTTP {status}): {reason}")
    daily = data.get("daily") or {}
    days, values = daily.get("time"), daily.get(VARIABLE)
    if not isinstance(days, list) or not isinstance(values, list) or len(days) != len(values):
        raise WeatherUnavailable("Open-Meteo's answer holds no daily series")
    unit = str((data.get("daily_units") or {}).get(VARIABLE) or "°C")
    return [str(d) for d in days], values, unit


async def weather_statistics(args: WeatherArgs) -> str:
    days, values, unit = await fetch_daily(args)
    return explain(args, weather_stats(days, values, unit))
