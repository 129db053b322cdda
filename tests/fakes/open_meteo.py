"""A real HTTP server on 127.0.0.1 that speaks Open-Meteo's archive API (`GET /v1/archive`):
daily series as Open-Meteo sends them (`daily_units`, `daily.time`, one list per variable, null
for a missing day), and its 400 `{"error": true, "reason": ...}` for a bad request.

The series is fixed: 10.0 °C every day but a 30.0 °C spike on the range's last day and a
missing value (null) on its second, so tests know the statistics to expect.
"""

import json
import threading
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SPIKE, USUAL = 30.0, 10.0


class FakeOpenMeteo:
    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenMeteo":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"


def archive_body(query: dict[str, str]) -> tuple[int, dict[str, Any]]:
    try:
        start, end = date.fromisoformat(query["start_date"]), date.fromisoformat(query["end_date"])
        latitude, longitude = float(query["latitude"]), float(query["longitude"])
    except (KeyError, ValueError) as exc:
        return 400, {"error": True, "reason": f"Invalid request: {exc}"}
    days = [(start + timedelta(n)).isoformat() for n in range((end - start).days + 1)]
    values: list[float | None] = [USUAL] * len(days)
    values[-1] = SPIKE
    if len(values) > 2:
        values[1] = None
    variable = query.get("daily", "temperature_2m_mean")
    return 200, {
        "latitude": latitude,
        "longitude": longitude,
        "generationtime_ms": 0.1,
        "utc_offset_seconds": 0,
        "timezone": "GMT",
        "timezone_abbreviation": "GMT",
        "elevation": 38.0,
        "daily_units": {"time": "iso8601", variable: "°C"},
        "daily": {"time": days, variable: values},
    }


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        self.server.fake.requests.append(query)  # type: ignore[attr-defined]
        if url.path != "/v1/archive":
            status, body = 404, {"error": True, "reason": f"no such path: {url.path}"}
        else:
            status, body = archive_body(query)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass
