"""`artisan up` as a user runs it: start, upload a folder, follow its SSE, stop, start again."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shared.launcher.embedded import free_port
from tests.fixtures import documents

ARTISAN = str(Path(sys.executable).parent / "artisan")
pytestmark = pytest.mark.e2e


class RunningArtisan:
    def __init__(self, process: subprocess.Popen[str], url: str, api_key: str, output: list[str]):
        self.process, self.url, self.api_key, self.output = process, url, api_key, output

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


def start_artisan(env: dict[str, str], timeout: float = 90) -> RunningArtisan:
    process = subprocess.Popen(
        [ARTISAN, "up"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            raise AssertionError("artisan up exited:\n" + "".join(output))
        output.append(line)
        if match := re.search(r"API key of the local user: (\S+)", line):
            url = f"http://127.0.0.1:{env['ARTISAN_PORT']}"
            return RunningArtisan(process, url, match.group(1), output)
    process.kill()
    raise AssertionError("artisan up printed no API key:\n" + "".join(output))


def stop_artisan(running: RunningArtisan) -> str:
    running.process.send_signal(signal.SIGINT)
    rest, _ = running.process.communicate(timeout=60)
    assert running.process.returncode == 0, rest
    return rest


@pytest.fixture
def artisan_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARTISAN_")}
    env.update(
        ARTISAN_DATA_DIR=str(tmp_path / "data"),
        ARTISAN_PORT=str(free_port()),
        ARTISAN_NATS_PORT=str(free_port()),
    )
    yield env


def write_folder(root: Path) -> list[str]:
    (root / "nested").mkdir(parents=True)
    names = []
    for index, (name, data) in enumerate(sorted(documents.every_format().items())):
        target = root / ("nested" if index % 2 else "") / name
        target.write_bytes(data)
        names.append(name)
    return names


def follow_events_until_settled(running: RunningArtisan, file_ids: set[str]) -> dict[str, list]:
    """Follow GET /v1/events until every file is ready or failed; events per file in order."""
    seen: dict[str, list] = {file_id: [] for file_id in file_ids}
    settled: set[str] = set()
    with httpx.stream("GET", f"{running.url}/v1/events", headers=running.headers, timeout=60) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            if event["file_id"] in seen:
                seen[event["file_id"]].append(event)
                if event["status"] in ("ready", "failed"):
                    settled.add(event["file_id"])
            if settled == file_ids:
                return seen
    raise AssertionError(f"stream ended early; settled {len(settled)} of {len(file_ids)}")


def test_up_upload_a_folder_follow_progress_stop_and_restart(
    artisan_env: dict[str, str], tmp_path: Path
) -> None:
    running = start_artisan(artisan_env)
    try:
        folder = tmp_path / "docs"
        names = write_folder(folder)
        uploads = [
            ("files", (path.name, path.read_bytes()))
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        ]
        with httpx.Client(base_url=running.url, headers=running.headers, timeout=30) as client:
            response = client.post("/v1/files", files=uploads)
            assert response.status_code == 202, response.text
            records = response.json()["items"]
            assert sorted(r["filename"] for r in records) == sorted(names)
            events = follow_events_until_settled(running, {r["id"] for r in records})
            for file_events in events.values():
                progress = [e["progress"] for e in file_events]
                assert progress == sorted(progress)
                assert file_events[-1]["status"] == "ready" and progress[-1] == 100
            listed = client.get("/v1/files").json()["items"]
            assert {r["status"] for r in listed} == {"ready"}
    finally:
        stop_artisan(running)

    again = start_artisan(artisan_env)
    try:
        assert again.api_key == running.api_key
        with httpx.Client(base_url=again.url, headers=again.headers, timeout=30) as client:
            listed = client.get("/v1/files").json()["items"]
            assert len(listed) == len(names) and {r["status"] for r in listed} == {"ready"}
        second = subprocess.run(
            [ARTISAN, "up"], env=artisan_env, capture_output=True, text=True, timeout=60
        )
        assert second.returncode != 0
        assert "already in use" in second.stderr + second.stdout
    finally:
        stop_artisan(again)


def test_cli_uploads_a_folder_and_lists_it(artisan_env: dict[str, str], tmp_path: Path) -> None:
    running = start_artisan(artisan_env)
    try:
        folder = tmp_path / "notes"
        names = write_folder(folder)
        (folder / "ignored.bin").write_bytes(b"\x00\x01")
        uploaded = subprocess.run(
            [ARTISAN, "upload", str(folder)],
            env=artisan_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert uploaded.returncode == 0, uploaded.stdout + uploaded.stderr
        assert "ignored.bin" in uploaded.stdout + uploaded.stderr
        listing = subprocess.run(
            [ARTISAN, "files"], env=artisan_env, capture_output=True, text=True, timeout=60
        )
        assert listing.returncode == 0, listing.stderr
        for name in names:
            assert name in listing.stdout
        assert listing.stdout.count("ready") == len(names)
    finally:
        stop_artisan(running)
