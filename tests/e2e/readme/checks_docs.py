"""The README's way to read the documentation site: the `docs` extra brings MkDocs and its theme,
and `mkdocs serve` serves the site from a checkout, fetched by a browser as a newcomer opens it."""

import subprocess
import tomllib
from importlib.metadata import version

import httpx

from shared.config import REPO_ROOT
from shared.launcher.embedded import free_port
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour, lines_until

SHOWN_ADDRESS = "127.0.0.1:8001"


def docs_site(tour: Tour, shown: Shown) -> None:
    install, serve = shown.command.split(" && ")
    assert install == '.venv/bin/pip install -q -e ".[docs]"', install
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    for requirement in extras["optional-dependencies"]["docs"]:
        version(requirement.split(">")[0].split("=")[0])  # installed, as the install would
    address = f"127.0.0.1:{free_port()}"
    site = subprocess.Popen(
        ["bash", "-c", "exec " + serve.replace(SHOWN_ADDRESS, address)],
        cwd=tour.checkout,
        env={**tour.env, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner about its successor
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines_until(site, "Serving on")  # mkdocs says so once the site is built and listening
        home = httpx.get(f"http://{address}/", timeout=10)
        assert home.status_code == 200 and "Connect a language model" in home.text, home.text[:2000]
        models = httpx.get(f"http://{address}/models/", timeout=10)
        assert models.status_code == 200 and "Run a model on this machine" in models.text
    finally:
        site.terminate()
        site.communicate(timeout=30)
