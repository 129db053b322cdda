"""Model API keys at rest: sealed (Fernet: AES-128-CBC + HMAC-SHA256) with ARTISAN_SECRETS_KEY,
which lives outside the database — in the environment, or the 0600 file `artisan up` keeps in its
data directory. A copy of the database alone reveals no key."""

import base64
import hashlib
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from shared.config import infra_settings

SECRETS_KEY_ENV = "ARTISAN_SECRETS_KEY"
SECRETS_KEY_FILE = "secrets.key"
MIN_KEY_CHARS = 32  # a placeholder ("changeme") is refused, not used


class SecretsKeyMissing(RuntimeError):
    """No usable ARTISAN_SECRETS_KEY: keys can be neither sealed nor read."""


class SecretUnreadable(RuntimeError):
    """A sealed key that this secrets key did not seal (the key changed, or the data did)."""


def _secrets_key() -> str:
    """ARTISAN_SECRETS_KEY, else the one `artisan up` keeps (for the CLI on the same machine)."""
    infra = infra_settings()
    if infra.secrets_key:
        return infra.secrets_key.get_secret_value()
    kept = infra.data_dir / SECRETS_KEY_FILE
    return kept.read_text().strip() if kept.is_file() else ""


def _fernet() -> Fernet:
    value = _secrets_key()
    if len(value) < MIN_KEY_CHARS:
        raise SecretsKeyMissing(
            f"{SECRETS_KEY_ENV} is {'too short' if value else 'not set'}: set it to a random"
            f" string of at least {MIN_KEY_CHARS} characters (`artisan up` makes one itself)"
        )
    # any long random string will do: its SHA-256 is the 32 bytes Fernet wants
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(value.encode()).digest()))


def can_seal() -> bool:
    try:
        _fernet()
    except SecretsKeyMissing:
        return False
    return True


def seal(secret: str) -> bytes:
    return _fernet().encrypt(secret.encode())


def unseal(token: bytes) -> str:
    try:
        return _fernet().decrypt(token).decode()
    except InvalidToken:
        raise SecretUnreadable(
            f"a saved API key was sealed with another {SECRETS_KEY_ENV}: enter it again in Settings"
        ) from None


def ensure_secrets_key(data_dir: Path) -> str:
    """The secrets key from the environment, else the one kept in `data_dir` (made once, 0600)."""
    if from_env := os.environ.get(SECRETS_KEY_ENV):
        return from_env
    path = data_dir / SECRETS_KEY_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = secrets.token_urlsafe(32)
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
    return key
