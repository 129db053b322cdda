"""`artisan ask` as a user runs it against `artisan up`: a streamed answer with its sources."""

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_artisan_up import ARTISAN, artisan_env, start_artisan, stop_artisan
from tests.fixtures import documents

pytestmark = pytest.mark.e2e
__all__ = ["artisan_env"]  # the fixture, shared with the `artisan up` tests


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARTISAN, *args], env=env, capture_output=True, text=True, timeout=120)


def test_artisan_ask_prints_a_cited_answer(artisan_env: dict[str, str], tmp_path: Path) -> None:
    memo = tmp_path / "pricing.md"
    memo.write_text(documents.markdown())
    running = start_artisan(artisan_env)
    try:
        uploaded = run_cli(artisan_env, "upload", str(memo))
        assert uploaded.returncode == 0, uploaded.stdout + uploaded.stderr

        asked = run_cli(artisan_env, "ask", "Why did we move to usage tiers?", "--persona", "vlad")
        assert asked.returncode == 0, asked.stderr
        assert "predictable bills" in asked.stdout and "[Ref: 1]" in asked.stdout
        assert "Sources:" in asked.stdout
        assert "[1] pricing.md, Pricing decision, lines " in asked.stdout

        as_json = run_cli(artisan_env, "ask", "Why did we move to usage tiers?", "--json")
        done = json.loads(as_json.stdout)
        assert done["citations"][0]["filename"] == "pricing.md" and done["persona"] == "gunnar"

        talk = subprocess.run(
            [ARTISAN, "chat", "--persona", "vlad"],
            env=artisan_env,
            input="Who are you?\nWhy did we move to usage tiers?\n\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert talk.returncode == 0, talk.stderr
        assert "Talking to Vlad" in talk.stdout and "I'm Vlad" in talk.stdout
        assert "predictable bills" in talk.stdout and "[1] pricing.md" in talk.stdout

        unknown = run_cli(artisan_env, "ask", "hello", "--persona", "nobody")
        assert unknown.returncode == 1 and "gunnar" in unknown.stderr

        files = httpx.get(f"{running.url}/v1/files", headers=running.headers).json()["items"]
        assert [f["filename"] for f in files] == ["pricing.md"]  # asking changed no file
    finally:
        stop_artisan(running)
