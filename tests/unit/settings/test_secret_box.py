"""API keys at rest: sealed with ARTISAN_SECRETS_KEY, unreadable with another, refused without."""

import stat
from pathlib import Path

import pytest

from shared.config import infra_settings
from shared.secret_box import (
    SECRETS_KEY_ENV,
    SECRETS_KEY_FILE,
    SecretsKeyMissing,
    SecretUnreadable,
    can_seal,
    ensure_secrets_key,
    seal,
    unseal,
)

KEY = "sk-proj-UnitTest7fQ2mL9xW4vB8nK3pR6sY1"


@pytest.fixture
def secrets_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.setenv("ARTISAN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(SECRETS_KEY_ENV, "a" * 40)
    infra_settings.cache_clear()
    yield monkeypatch
    infra_settings.cache_clear()


def test_a_sealed_key_reads_back_and_holds_no_plain_text(secrets_key: pytest.MonkeyPatch) -> None:
    sealed = seal(KEY)
    assert KEY.encode() not in sealed and unseal(sealed) == KEY
    assert seal(KEY) != sealed  # a fresh IV each time: equal keys do not look equal


def test_another_secrets_key_cannot_read_it(secrets_key: pytest.MonkeyPatch) -> None:
    sealed = seal(KEY)
    secrets_key.setenv(SECRETS_KEY_ENV, "b" * 40)
    infra_settings.cache_clear()
    with pytest.raises(SecretUnreadable, match="enter it again in Settings"):
        unseal(sealed)


def test_no_key_or_a_placeholder_seals_nothing(secrets_key: pytest.MonkeyPatch) -> None:
    secrets_key.setenv(SECRETS_KEY_ENV, "changeme")
    infra_settings.cache_clear()
    assert not can_seal()
    with pytest.raises(SecretsKeyMissing, match="too short"):
        seal(KEY)


def test_artisan_up_keeps_one_key_readable_only_by_its_owner(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(SECRETS_KEY_ENV, raising=False)
    first = ensure_secrets_key(tmp_path)
    path = tmp_path / SECRETS_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(first) >= 32
    assert ensure_secrets_key(tmp_path) == first
    monkeypatch.setenv(SECRETS_KEY_ENV, "c" * 40)
    assert ensure_secrets_key(tmp_path) == "c" * 40  # the environment's wins
