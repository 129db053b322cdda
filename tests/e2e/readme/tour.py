"""A newcomer's machine: a scratch HOME, a checkout whose `.venv` is the installed one, and
`artisan up` started the way the quickstart starts it (embedded NATS and PostgreSQL, nothing
configured). Commands run in bash from the checkout, as pasted from the README, with two
adjustments a reader makes too: the ports are free ones (ARTISAN_PORT, ARTISAN_NATS_PORT, and
`:8000` in URLs), and ids the README elides (`4316f0c3-…`, `FILE_ID`) are the ones of this run."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from shared.launcher.embedded import free_port
from tests.fakes.open_meteo import FakeOpenMeteo

VENV = Path(sys.executable).parent.parent
README_PORT = "8000"
ELIDED_ID = re.compile(r"\b([0-9a-f]{8})-…")
LISTED_FILE = re.compile(r"^([0-9a-f]{8})-[0-9a-f-]{27}\s+(\S+)", re.MULTILINE)
LEADING_SETTINGS = re.compile(r"((?:\w+=\S* )*)(.*)", re.DOTALL)
KEY_LINE = re.compile(r"API key of the local user: (\S+)")


class Tour:
    def __init__(self, root: Path, readme_outputs: list[str], open_meteo: FakeOpenMeteo) -> None:
        self.home = root / "home"
        self.checkout = self.home / "artisan"
        self.checkout.mkdir(parents=True)
        (self.checkout / ".venv").symlink_to(VENV)
        self.port = str(free_port())
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ARTISAN_")}
        self.env |= {
            "HOME": str(self.home),
            # `source .venv/bin/activate`, as the tour says, so `artisan` is on the PATH
            "VIRTUAL_ENV": str(self.checkout / ".venv"),
            "PATH": f"{VENV / 'bin'}{os.pathsep}{self.env.get('PATH', '')}",
            "ARTISAN_PORT": self.port,
            "ARTISAN_NATS_PORT": str(free_port()),
            # Open-Meteo's archive for the weather tool (the README moves only its host)
            "ARTISAN_WEATHER_BASE_URL": open_meteo.base_url,
        }
        self.open_meteo = open_meteo
        # the README's `artisan files` listing names the file behind each elided id
        self.readme_files = {
            prefix: name for out in readme_outputs for prefix, name in LISTED_FILE.findall(out)
        }
        self.process: subprocess.Popen[str] | None = None
        self.banner = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.home / ".artisan"

    @property
    def key(self) -> str:
        return self.env["KEY"]

    # --- `artisan up` -------------------------------------------------------------------------

    def up(self, command: str = ".venv/bin/artisan up", timeout: float = 180) -> str:
        """Start the system with `command`; the banner it printed once it was ready."""
        self.down()
        self.process = self.background(command)
        lines: list[str] = []
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise AssertionError(f"`{command}` exited:\n{''.join(lines)}")
            lines.append(line)
            if line.startswith("Press Ctrl-C to stop."):
                self.banner = "".join(lines)
                match = KEY_LINE.search(self.banner)
                assert match, self.banner
                self.env["KEY"] = match.group(1)
                return self.banner
        raise AssertionError(f"`{command}` was not ready in {timeout:.0f} s:\n{''.join(lines)}")

    def running(self) -> "Tour":
        if self.process is None:
            self.up()
        return self

    def down(self) -> str:
        """Ctrl-C, as a user stops it; what it printed while stopping."""
        if self.process is None:
            return ""
        self.process.send_signal(signal.SIGINT)
        rest, _ = self.process.communicate(timeout=90)
        code, self.process = self.process.returncode, None
        assert code == 0, rest
        assert "Stopped. Your data is kept" in rest, rest
        return rest

    # --- commands ------------------------------------------------------------------------------

    def as_run_here(self, command: str) -> str:
        """The README's command with this machine's port and this run's file ids."""
        command = command.replace(f"localhost:{README_PORT}", f"localhost:{self.port}")
        command = command.replace(f"127.0.0.1:{README_PORT}", f"127.0.0.1:{self.port}")
        command = ELIDED_ID.sub(lambda m: self.file_id(self.readme_files[m.group(1)]), command)
        if "FILE_ID" in command:
            [named] = re.findall(r"@([\w.-]+)", command)
            command = command.replace("FILE_ID", self.file_id(named))
        return command

    def shell(
        self, command: str, *, stdin: str | None = None, timeout: float = 180, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            ["bash", "-c", self.as_run_here(command)],
            cwd=self.checkout,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check:
            assert result.returncode == 0, f"`{command}`: {result.stdout}\n{result.stderr}"
        return result

    def background(self, command: str) -> subprocess.Popen[str]:
        # `NAME=value exec command`: the command replaces bash, so a signal reaches it
        settings, command = LEADING_SETTINGS.match(self.as_run_here(command)).groups()
        return subprocess.Popen(
            ["bash", "-c", f"{settings}exec {command}"],
            cwd=self.checkout,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    # --- the API, to see what a command did ---------------------------------------------------

    def api(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key or self.key}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def files(self) -> list[dict[str, Any]]:
        with self.api() as api:
            return api.get("/v1/files").json()["items"]

    def file_id(self, name: str) -> str:
        named = [f for f in self.files() if f["filename"] == Path(name).name]
        assert named, f"no file named {name!r}: {[f['filename'] for f in self.files()]}"
        return named[0]["id"]

    def wait_until_settled(self, timeout: float = 240) -> list[dict[str, Any]]:
        """Every file ready or failed; the file list."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = self.files()
            if all(f["status"] in ("ready", "failed") for f in listed):
                return listed
            time.sleep(0.5)
        raise AssertionError(f"files still processing after {timeout:.0f} s: {self.files()}")


def lines_until(process: subprocess.Popen[str], word: str, limit: int = 200) -> list[str]:
    """What a running command printed up to the line that says `word` (any case)."""
    assert process.stdout is not None
    lines: list[str] = []
    while len(lines) < limit and (line := process.stdout.readline()):
        lines.append(line)
        if word.lower() in line.lower():
            return lines
    raise AssertionError(f"never said {word!r}:\n{''.join(lines)}")
