"""`artisan upload` of a changed file and `artisan sync DIR` update the file in place, driven as a
user drives them: the real CLI process against the running system."""

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.conftest import ClientFactory
from tests.integration.test_file_updates import plan

pytestmark = pytest.mark.asyncio(loop_scope="session")

ARTISAN = str(Path(sys.executable).with_name("artisan"))
SETTLE_SECONDS = 60  # an upper bound for a step to finish, never a measured duration


def cli_env(system: Stack, client: httpx.AsyncClient) -> dict[str, str]:
    key = client.headers["Authorization"].removeprefix("Bearer ")
    return {**os.environ, "ARTISAN_URL": system.gateway_url, "ARTISAN_API_KEY": key}


async def artisan(env: dict[str, str], *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        ARTISAN, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), SETTLE_SECONDS)
    return process.returncode or 0, out.decode()


async def only_file(client: httpx.AsyncClient) -> dict[str, Any]:
    [record] = (await client.get("/v1/files")).json()["items"]
    return record


async def test_uploading_a_changed_file_of_the_same_name_updates_it_in_place(
    system: Stack, make_client: ClientFactory, tmp_path: Path
) -> None:
    client = await make_client()
    env, path = cli_env(system, client), tmp_path / "plan.md"
    path.write_text(plan(changed=False, tag="cli upload"))
    code, out = await artisan(env, "upload", str(path))
    assert code == 0, out
    first = await only_file(client)

    path.write_text(plan(changed=True, tag="cli upload"))
    code, out = await artisan(env, "upload", str(path))
    assert code == 0, out
    second = await only_file(client)
    assert second["id"] == first["id"]
    assert (second["version"], second["live_version"], second["reused_chunks"]) == (2, 2, 23)

    code, out = await artisan(env, "upload", "--new", str(path))
    assert code == 0 and "already uploaded" in out, out  # the same content is one file


# Ctrl-C once went unheard after a change was synced (the cancellation was lost while the
# watch's thread ran), and the sync carried on: the README test caught it
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
async def test_sync_updates_a_file_when_it_changes_and_stops_cleanly(
    system: Stack, make_client: ClientFactory, tmp_path: Path, stop_signal: signal.Signals
) -> None:
    client = await make_client()
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "plan.md").write_text(plan(changed=False, tag="sync"))
    process, lines = await start_sync(system, client, folder)
    assert process.stdout is not None
    try:
        first = await only_file(client)
        assert first["status"] == "ready", lines

        (folder / "plan.md").write_text(plan(changed=True, tag="sync"))
        # the sync says when the change it sent is ready
        await asyncio.wait_for(_read_until(process.stdout, lines, "1 ready"), SETTLE_SECONDS)
        updated = await only_file(client)
        assert (updated["id"], updated["live_version"]) == (first["id"], 2), lines
        assert updated["reused_chunks"] == 23
        await asyncio.wait_for(_read_until(process.stdout, lines, "Watching"), SETTLE_SECONDS)
    finally:
        process.send_signal(stop_signal)
        rest, _ = await asyncio.wait_for(process.communicate(), SETTLE_SECONDS)
    output = "".join(lines) + rest.decode()
    assert process.returncode == 0, output
    assert "Stopped syncing" in output


async def start_sync(
    system: Stack, client: httpx.AsyncClient, folder: Path
) -> tuple[asyncio.subprocess.Process, list[str]]:
    """`artisan sync FOLDER`, read until it watches (its first upload done); the lines read."""
    return await start_cli(cli_env(system, client), "sync", str(folder), until="Watching")


async def start_cli(
    env: dict[str, str], *args: str, until: str
) -> tuple[asyncio.subprocess.Process, list[str]]:
    """`artisan ARGS…` started, its output read until a line holds `until`; the lines read."""
    process = await asyncio.create_subprocess_exec(
        ARTISAN, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    assert process.stdout is not None
    lines: list[str] = []
    await asyncio.wait_for(_read_until(process.stdout, lines, until), SETTLE_SECONDS)
    return process, lines


async def _read_until(stream: asyncio.StreamReader, lines: list[str], marker: str) -> None:
    while line := (await stream.readline()).decode():
        lines.append(line)
        if marker in line:
            return
    raise AssertionError(f"the sync ended before '{marker}': {''.join(lines)}")


# issue 29, finding 9: files were matched by base name (a/notes.md and b/notes.md overwrote each
# other) and a link out of the folder was followed (a link to ~/.aws/credentials was uploaded)
async def test_sync_keys_files_by_their_path_and_never_follows_a_link_out(
    system: Stack, make_client: ClientFactory, tmp_path: Path
) -> None:
    client = await make_client()
    folder, outside = tmp_path / "notes", tmp_path / "home"
    for name, text in [("a/notes.md", "Alpha team notes."), ("b/notes.md", "Beta team notes.")]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# Notes\n\n{text}\n")
    (outside / ".aws").mkdir(parents=True)
    (outside / ".aws" / "credentials.md").write_text("aws_secret_access_key = not-for-artisan\n")
    (folder / "creds.md").symlink_to(outside / ".aws" / "credentials.md")
    process, lines = await start_sync(system, client, folder)
    assert process.stdout is not None
    try:
        first = {r["id"]: r for r in (await client.get("/v1/files")).json()["items"]}
        assert sorted(r["filename"] for r in first.values()) == ["notes.md", "notes.md"], lines
        assert f"skipped 1: link out of the folder: {folder / 'creds.md'}\n" in lines

        (folder / "b" / "notes.md").write_text("# Notes\n\nBeta team notes, revised.\n")
        await asyncio.wait_for(_read_until(process.stdout, lines, "1 ready"), SETTLE_SECONDS)
    finally:
        process.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(process.communicate(), SETTLE_SECONDS)
    after = {r["id"]: r for r in (await client.get("/v1/files")).json()["items"]}
    assert after.keys() == first.keys(), "".join(lines) + rest.decode()  # updated, none added
    texts = {i: (await client.get(f"/v1/files/{i}/content")).text for i in after}
    kinds = sorted(("Alpha" in text, "revised" in text) for text in texts.values())
    assert kinds == [(False, True), (True, False)], texts  # a's as it was, b's revised
    assert sorted(r["version"] for r in after.values()) == [1, 2]  # b's file, in place
