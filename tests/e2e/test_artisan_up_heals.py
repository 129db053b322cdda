"""`artisan up` heals itself: its NATS and PostgreSQL SIGKILLed, it says so, restarts them and
works on, with nobody's help; `artisan reembed` reaches its NATS without being told the token."""

import logging
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from shared.launcher.embedded import free_port
from tests.e2e.test_artisan_up import ARTISAN, RunningArtisan, start_artisan
from tests.fixtures import documents

pytestmark = pytest.mark.e2e
logger = logging.getLogger(__name__)


class Output(threading.Thread):
    """Reads what `artisan up` prints after its banner, so a test can wait for a line."""

    def __init__(self, running: RunningArtisan) -> None:
        super().__init__(daemon=True)
        self.running = running
        self.lines: list[str] = []

    def run(self) -> None:
        assert self.running.process.stdout is not None
        for line in self.running.process.stdout:
            self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 60) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line for line in self.lines):
                return time.monotonic()
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in:\n{''.join(self.lines)}")


def wait_ready(running: RunningArtisan, timeout: float = 60) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{running.url}/readyz", timeout=5).status_code == 200:
                return time.monotonic()
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"/readyz not 200 after {timeout:.0f} s")


def kill_and_heal(running: RunningArtisan, output: Output, name: str, pid: int) -> None:
    """SIGKILL `name` while a file is processed; it is back, ready, and the file ends ready."""
    with httpx.Client(base_url=running.url, headers=running.headers, timeout=30) as client:
        response = client.post("/v1/files", files=[("files", (f"{name}.md", _memo(name)))])
        assert response.status_code == 202, response.text
        file_id = response.json()["items"][0]["id"]
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        restarted_at = output.wait_for(f"{name} stopped unexpectedly; restarted it")
        ready_at = wait_ready(running)
        deadline = time.monotonic() + 180
        while (status := _status(client, file_id)) != "ready" and time.monotonic() < deadline:
            assert status != "failed"
            time.sleep(0.2)
        assert status == "ready"
    logger.warning(  # default settings (60 s ack wait): see with --log-cli-level=WARNING
        f"`artisan up`, {name} SIGKILLed: restarted after {restarted_at - killed_at:.2f} s,"
        f" /readyz 200 after {ready_at - killed_at:.2f} s, the file ready after"
        f" {time.monotonic() - killed_at:.2f} s"
    )


def _memo(name: str) -> bytes:
    return (documents.markdown() + f"\n\nWritten before {name} was killed.\n").encode()


def _status(client: httpx.Client, file_id: str) -> str | None:
    try:
        response = client.get(f"/v1/files/{file_id}")
    except httpx.TransportError:
        return None
    return response.json()["status"] if response.status_code == 200 else None


def test_up_restarts_its_killed_nats_and_postgres(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARTISAN_")}
    data_dir = tmp_path / "data"
    env.update(
        ARTISAN_DATA_DIR=str(data_dir),
        ARTISAN_PORT=str(free_port()),
        ARTISAN_NATS_PORT=str(free_port()),
    )
    running = start_artisan(env)
    output = Output(running)
    output.start()
    try:
        nats_pid = int((data_dir / "nats" / "nats.pid").read_text())
        kill_and_heal(running, output, "nats-server", nats_pid)
        postmaster = int((data_dir / "pgdata" / "postmaster.pid").read_text().split()[0])
        kill_and_heal(running, output, "postgres", postmaster)
        # a second process reaches the running NATS: its token is read from the server's
        # environment, as this user may
        reembed = subprocess.run(
            [ARTISAN, "reembed"], env=env, capture_output=True, text=True, timeout=180
        )
        assert reembed.returncode == 0, reembed.stdout + reembed.stderr
        assert "done: every file is ready again" in reembed.stdout
    finally:
        running.process.send_signal(signal.SIGINT)
        running.process.wait(timeout=60)
        output.join(timeout=10)
    printed = "".join(output.lines)
    assert running.process.returncode == 0, printed
    assert "restarted it" not in printed.split("Stopping Artisan")[-1], "nothing comes back on stop"
