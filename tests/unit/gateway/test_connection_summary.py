"""Settings' "Test connection" tells what happened, never what the endpoint wrote: a local HTTP
server answers with bodies holding a secret-looking string, and no report carries it."""

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from services.gateway.models.connection_test import check_connection
from services.gateway.models.schemas import ConnectionReport
from shared.config import ModelSettings

SECRET = "AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
KEY = "sk-proj-ConnectionTest7fQ2mL9xW4vB8nK3"
MODELS = {
    "object": "list",
    "data": [
        {"id": "writer-large", "object": "model"},
        {"id": "writer-small", "object": "model"},
        {"id": f"{SECRET}", "object": "model"},
        {"id": "sk-live-0123456789abcdefghijklmnopqrstuv", "object": "model"},
        {"id": "not-a-model", "object": "secret"},
    ],
}


class Answers:
    """What the server says to each path: (status, content type, body)."""

    def __init__(self) -> None:
        self.by_path: dict[str, tuple[int, str, bytes]] = {}
        self.paths: list[str] = []

    def set(self, path: str, status: int, body: object, content_type: str = "application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.by_path[path] = (status, content_type, data)


class _Handler(BaseHTTPRequestHandler):
    answers: Answers

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer()

    def _answer(self) -> None:
        self.answers.paths.append(self.path)
        status, content_type, data = self.answers.by_path.get(
            self.path, (404, "text/plain", f"no such path, but here is {SECRET}".encode())
        )
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, Answers]]:
    answers = Answers()
    handler = type("Handler", (_Handler,), {"answers": answers})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", answers
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def chat_at(base_url: str, model: str = "writer-large") -> ModelSettings:
    return ModelSettings(
        llm_base_url=base_url,
        llm_api_key=KEY,
        llm_model=model,
        embed_provider="local",
        model_hosts_allowed="",
    )


def report_of(settings: ModelSettings) -> ConnectionReport:
    report = asyncio.run(check_connection(settings))
    said = report.model_dump_json()
    for piece in ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "sk-live-", KEY, "here is"):
        assert piece not in said, said
    return report


def completion(content: str) -> dict[str, object]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "writer-large",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }


def test_a_model_that_answers_is_summed_up(server: tuple[str, Answers]) -> None:
    base_url, answers = server
    answers.set("/v1/models", 200, MODELS)
    answers.set("/v1/chat/completions", 200, completion('{"reply": "OK"}'))
    report = report_of(chat_at(base_url))
    chat = report.chat
    assert report.ok and chat.ok and chat.message.startswith("Connected: writer-large answered in")
    assert chat.status_code == 200 and chat.spoke_openai and chat.network == "loopback"
    assert chat.models == ["writer-large", "writer-small"]  # never a key-like or odd "name"
    assert chat.latency_ms is not None


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (401, "rejected the API key (HTTP 401): check the API key"),
        (403, "refused this API key access to 'writer-large' (HTTP 403)"),
        (400, "refused the test request (HTTP 400)"),
        (500, "fails (HTTP 500)"),
        (503, "fails (HTTP 503)"),
        (429, "busy or over its rate limit (HTTP 429)"),
    ],
)
def test_an_error_is_its_status_in_words_not_its_body(
    server: tuple[str, Answers], status: int, said: str
) -> None:
    base_url, answers = server
    body = {"error": {"message": f"internal detail: {SECRET}", "type": "x"}}
    answers.set("/v1/chat/completions", status, body)
    chat = report_of(chat_at(base_url)).chat
    assert not chat.ok and said in chat.message, chat.message
    assert chat.status_code == status and chat.network == "loopback"


def test_an_unknown_model_is_told_with_the_models_the_endpoint_lists(
    server: tuple[str, Answers],
) -> None:
    base_url, answers = server
    answers.set("/v1/models", 200, MODELS)
    answers.set("/v1/chat/completions", 404, {"error": {"message": f"no model; {SECRET}"}})
    chat = report_of(chat_at(base_url, model="writer-huge")).chat
    assert chat.status_code == 404 and not chat.ok
    assert "has no model 'writer-huge'" in chat.message
    assert chat.message.endswith("it lists writer-large, writer-small.")


def test_something_else_answering_is_not_shown(server: tuple[str, Answers]) -> None:
    base_url, answers = server
    page = f"<html><body>Internal admin console. {SECRET}</body></html>"
    answers.set("/v1/models", 200, page, content_type="text/html")
    answers.set("/v1/chat/completions", 200, page, content_type="text/html")
    chat = report_of(chat_at(base_url)).chat
    assert not chat.ok and chat.models == []
    assert "not in the OpenAI-compatible format" in chat.message, chat.message
    assert chat.spoke_openai is False


def test_a_reply_that_is_not_the_json_asked_for_is_not_shown(server: tuple[str, Answers]) -> None:
    base_url, answers = server
    answers.set("/v1/chat/completions", 200, completion(f"Sure! Here you go: {SECRET}"))
    chat = report_of(chat_at(base_url)).chat
    assert not chat.ok and "not with the JSON asked for" in chat.message
    assert chat.status_code == 200 and chat.spoke_openai is True


def test_an_embeddings_endpoint_is_summed_up_the_same_way(server: tuple[str, Answers]) -> None:
    base_url, answers = server
    answers.set("/v1/embeddings", 401, {"error": {"message": f"bad key {SECRET}"}})
    settings = ModelSettings(
        llm_base_url="",
        llm_api_key=None,
        embed_provider="openai",
        openai_base_url=base_url,
        openai_api_key=KEY,
        model_hosts_allowed="",
    )
    report = report_of(settings)
    assert report.chat.ok and not report.embeddings.ok
    assert "rejected the API key (HTTP 401)" in report.embeddings.message
    assert report.embeddings.network == "loopback"


def test_an_address_refused_at_connection_time_is_not_called(server: tuple[str, Answers]) -> None:
    base_url, answers = server
    port = base_url.split(":")[2].split("/")[0]
    chat = report_of(chat_at(f"http://169.254.169.254:{port}/v1")).chat
    assert not chat.ok and "must not be a cloud metadata service" in chat.message
    outside = chat_at(base_url).model_copy(update={"model_hosts_allowed": "ollama:11434"})
    chat = report_of(outside).chat
    assert not chat.ok and "ARTISAN_MODEL_HOSTS_ALLOWED: ollama:11434" in chat.message
    assert answers.paths == []


def test_nothing_listening_is_told_as_such() -> None:
    chat = report_of(chat_at("http://127.0.0.1:9/v1")).chat
    assert not chat.ok and "connection failed" in chat.message and chat.status_code is None
