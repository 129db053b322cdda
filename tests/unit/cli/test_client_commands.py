"""`artisan files`, `artisan rm`, and how the CLI finds the gateway and its key."""

from uuid import uuid4

import httpx
import pytest

from shared import gateway_replies
from shared.cli import client
from shared.config import gateway_settings, infra_settings
from shared.launcher.embedded import free_port
from tests.unit.cli.fakes import fake_http, record


def test_files_lists_full_ids_in_a_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    file_id = str(uuid4())
    done = record(file_id, "notes.md", file_type="strategic", status="ready", progress=100,
                  processing_stage="ready", processed_chunks=12, total_chunks=12)  # fmt: skip
    fake_http(monkeypatch, lambda _: httpx.Response(200, json={"items": [done]}))
    assert client.list_files() == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["ID", "NAME", "TYPE", "STATUS", "PROGRESS", "CHUNKS"]
    assert row.split() == [file_id, "notes.md", "strategic", "ready", "100%", "12/12"]


def test_files_when_there_are_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, lambda _: httpx.Response(200, json={"items": []}))
    assert client.list_files() == 0
    assert capsys.readouterr().out == "no files yet — try `artisan upload PATH`\n"


def test_rm_names_what_it_deleted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    calls: list[str] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        calls.append(f"{request.method} {request.url.path}")
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json=record("f1", "notes.md"))

    fake_http(monkeypatch, gateway)
    assert client.remove("f1") == 0
    assert capsys.readouterr().out == "deleted notes.md\n"
    assert calls == ["GET /v1/files/f1", "DELETE /v1/files/f1"]


def test_rm_of_an_unknown_file_prints_the_api_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, lambda _: httpx.Response(404, json={"detail": "file not found"}))
    assert client.remove("nope") == 1
    assert capsys.readouterr().err == "error: file not found\n"


def test_an_unreachable_gateway_gets_a_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("ARTISAN_URL", url)
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    assert client.list_files() == 1
    assert capsys.readouterr().err == (
        f"error: cannot reach Artisan at {url} — is `artisan up` running?\n"
    )


def test_without_a_key_the_user_is_told_how_to_get_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert client.list_files() == 1
    error = capsys.readouterr().err
    assert error.startswith("error: no API key")
    assert "`artisan up`" in error and "`artisan users create NAME`" in error
    assert "ARTISAN_API_KEY" in error


def test_the_key_comes_from_the_environment_before_the_local_user_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key_file = infra_settings().data_dir / "local-user.key"
    key_file.parent.mkdir(parents=True)
    key_file.write_text("local-key\n")
    assert client.api_key() == "local-key"
    monkeypatch.setenv("ARTISAN_API_KEY", "env-key")
    assert client.api_key() == "env-key"


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"ARTISAN_HOST": "0.0.0.0", "ARTISAN_PORT": "9000"}, "http://127.0.0.1:9000"),
        ({"ARTISAN_HOST": "::1"}, "http://[::1]:8000"),
        (
            {"ARTISAN_URL": "https://artisan.example/", "ARTISAN_PORT": "1"},
            "https://artisan.example",
        ),
    ],
)
def test_gateway_url(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], url: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    gateway_settings.cache_clear()
    assert client.gateway_url() == url


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(413, json={"detail": "too large"}), "too large"),
        (httpx.Response(422, json={"detail": [{"msg": "field required"}]}), "field required"),
        (httpx.Response(502, text="<html>bad gateway</html>"), "HTTP 502 Bad Gateway"),
    ],
)
def test_api_error(response: httpx.Response, message: str) -> None:
    assert gateway_replies.api_error(response) == message
