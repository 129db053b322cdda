"""The CLI's tests run with no key, no URL and an empty data directory."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.config import gateway_settings, infra_settings


@pytest.fixture(autouse=True)
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No key, no URL, an empty data directory; settings re-read from this environment."""
    for name in ("ARTISAN_API_KEY", "ARTISAN_URL", "ARTISAN_HOST", "ARTISAN_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARTISAN_DATA_DIR", str(tmp_path / "data"))
    infra_settings.cache_clear()
    gateway_settings.cache_clear()
    yield
    infra_settings.cache_clear()
    gateway_settings.cache_clear()
