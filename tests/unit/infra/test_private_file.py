"""The local user's key file is its owner's alone from its first byte: never written with the
default permissions and narrowed afterwards, and never seen half-written."""

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.launcher import local_user
from shared.launcher.local_user import write_private_file


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """umask 0: a file created with the default mode would be readable by everyone."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("permissive_umask")
def test_a_key_file_is_private_before_it_holds_a_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "local-user.key"
    key_file.write_text("ak_the_old_key\n")
    key_file.chmod(0o644)  # as the old code could leave it
    seen: list[tuple[str, int, str]] = []
    replace = os.replace

    def spy(source: str, target: Path) -> None:
        # the moment the key appears under its name: what it was written to is already 0600
        seen.append((Path(source).name, mode(Path(source)), Path(source).read_text()))
        replace(source, target)

    monkeypatch.setattr(local_user.os, "replace", spy)
    write_private_file(key_file, "ak_the_new_key\n")

    [(written_to, written_mode, written)] = seen
    assert written_to != key_file.name and written_mode == 0o600 and written == "ak_the_new_key\n"
    assert mode(key_file) == 0o600 and key_file.read_text() == "ak_the_new_key\n"
    assert [path.name for path in tmp_path.iterdir()] == [key_file.name], "nothing left behind"


@pytest.mark.usefixtures("permissive_umask")
def test_a_failed_write_leaves_the_old_key_and_no_stray_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "local-user.key"
    write_private_file(key_file, "ak_the_old_key\n")

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(local_user.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_private_file(key_file, "ak_the_new_key\n")
    assert key_file.read_text() == "ak_the_old_key\n" and mode(key_file) == 0o600
    assert [path.name for path in tmp_path.iterdir()] == [key_file.name]
