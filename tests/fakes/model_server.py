"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions, OpenAI embeddings and
Voyage embeddings wire formats (chat completions streamed as SSE chunks too, `stream: true`), with
scripted faults, for tests and benchmarks.

It runs in a background thread with one thread per request, so sync tests, async tests and other
OS processes can all call it, and many requests can sleep (`latency`, `delay`) at once.

    with FakeModelServer() as server:
        server.responder = lambda request: '{"answer": 42}'
        server.fail_with(429, headers={"Retry-After": "1"})   # the next request gets a 429
        ... ModelSettings(llm_base_url=server.base_url, ...) ...
        assert len(server.chat_requests) == 2
"""

import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from shared.text.tokens import count_tokens
from tests.fakes.wire_format import (
    embeddings_body,
    error_body,
    json_bytes,
    tool_call_deltas,
    tool_call_entries,
)

Responder = Callable[[dict[str, Any]], str]
"""Given a chat-completions request body, the assistant message's content."""
ToolCaller = Callable[[dict[str, Any]], list[dict[str, Any]] | None]
"""Given a request that offers `tools`, the calls to make ({"name", "arguments"}), or None."""

_MODELS = {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "tests"}]}


def empty_object_responder(request: dict[str, Any]) -> str:
    return "{}"


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    json: dict[str, Any]
    headers: dict[str, str]  # names lowercased
    received: float  # time.monotonic() on arrival


@dataclass(frozen=True)
class _Fault:
    """What happens to one request instead of (or before) the normal answer."""

    delay: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    content: str | None = None  # replaces the responder's chat answer
    finish_reason: str = "stop"  # "length": the answer was cut off at the request's max_tokens


class FakeModelServer:
    """`responder`, `latency` and the faults may change while it runs; the responder is called
    from many threads at once, so it must be thread-safe (a pure function is)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0) -> None:
        self.responder: Responder = responder or empty_object_responder
        self.tool_caller: ToolCaller | None = None  # set: requests offering tools may get calls
        self.latency = latency  # seconds every request sleeps before answering
        self.requests: list[RecordedRequest] = []
        self.model_list_requests: list[RecordedRequest] = []  # GET /models, a probe; kept
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[_Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "FakeModelServer":
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes sleeping requests so they answer at once
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "FakeModelServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake model server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stack_env(self, *, embeddings: bool = True) -> dict[str, str]:
        """Settings that send a stack's chat calls here, and its embeddings too (Voyage's wire
        format) unless `embeddings` is False: then the hashed local embedder, which is cheap."""
        env = {"ARTISAN_LLM_BASE_URL": self.base_url, "ARTISAN_LLM_API_KEY": "bench"}
        if not embeddings:
            return {**env, "ARTISAN_EMBED_PROVIDER": "local"}
        return {**env, "ARTISAN_VOYAGE_API_KEY": "bench", "ARTISAN_VOYAGE_BASE_URL": self.base_url}

    # scripting: each fault applies to one request, whatever its path, in the order given

    def fail_with(
        self,
        status: int,
        *,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | str | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` requests with `status` and `body` (default: an error's)."""
        raw = body if isinstance(body, str) else json.dumps(body or error_body(status))
        self._script(_Fault(status=status, headers=headers or {}, body=raw.encode()), times)

    def delay(self, seconds: float, *, times: int = 1) -> None:
        """Sleep `seconds` before answering the next `times` requests (on top of `latency`)."""
        self._script(_Fault(delay=seconds), times)

    def reply_raw(self, content: str, *, times: int = 1, cut_off: bool = False) -> None:
        """Answer the next `times` chat requests with `content` instead of the responder's
        (`cut_off`: as a model stopped at its max_tokens, finish_reason "length")."""
        fault = _Fault(content=content, finish_reason="length" if cut_off else "stop")
        self._script(fault, times)

    def reset(self) -> None:
        with self._lock:
            self._faults.clear()
            self.requests.clear()
            self.max_in_flight = self.in_flight

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/embeddings")]

    # serving (called from the request threads)

    def _script(self, fault: _Fault, times: int) -> None:
        with self._lock:
            self._faults.extend([fault] * times)

    def _arrive(self, path: str, payload: dict[str, Any], headers: dict[str, str]) -> _Fault:
        with self._lock:
            self.requests.append(RecordedRequest(path, payload, headers, time.monotonic()))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self._faults.popleft() if self._faults else _Fault()

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _answer(self, path: str, payload: dict[str, Any], fault: _Fault) -> tuple[int, dict, bytes]:
        wait = self.latency + fault.delay
        if wait > 0:
            self._stopping.wait(wait)
        if fault.status >= 400 or fault.body:  # an error, or a scripted body (a web page)
            return fault.status, fault.headers, fault.body or b""
        if path.endswith("/chat/completions") and payload.get("stream"):
            return 200, {"Content-Type": "text/event-stream"}, self._chat_stream(payload, fault)
        if path.endswith("/chat/completions"):
            return 200, {}, json_bytes(self._chat(payload, fault.content, fault.finish_reason))
        if path.endswith("/embeddings"):
            return 200, {}, json_bytes(embeddings_body(payload))
        return 404, {}, json_bytes(error_body(404, f"no such path: {path}"))

    def _chat(
        self, payload: dict[str, Any], content: str | None, finish: str = "stop"
    ) -> dict[str, Any]:
        calls = self.tool_caller(payload) if self.tool_caller and payload.get("tools") else None
        if calls:
            message = {"role": "assistant", "content": None}
            message["tool_calls"] = tool_call_entries(calls, next(self._ids))
            return self._completion(payload, message, "tool_calls", json.dumps(calls))
        answer = self.responder(payload) if content is None else content
        message = {"role": "assistant", "content": answer}
        return self._completion(payload, message, finish, answer)

    def _completion(
        self, payload: dict[str, Any], message: dict[str, Any], finish: str, answer: str
    ) -> dict[str, Any]:
        prompt_tokens = sum(
            count_tokens(str(sent.get("content") or "")) for sent in payload.get("messages", [])
        )
        completion_tokens = count_tokens(answer)
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": payload.get("model", "fake"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _chat_stream(self, payload: dict[str, Any], fault: _Fault) -> bytes:
        """The answer as SSE chunks, a word per chunk, then usage if asked for, then [DONE]."""
        answer = self._chat(payload, fault.content, fault.finish_reason)
        base = {key: answer[key] for key in ("id", "created", "model")}
        base["object"] = "chat.completion.chunk"
        choice = answer["choices"][0]
        content = choice["message"]["content"] or ""
        pieces = re.findall(r"\s*\S+\s*", content) or [content]
        deltas = [{"content": piece} for piece in pieces]
        if calls := choice["message"].get("tool_calls"):
            deltas = [{"tool_calls": [delta]} for delta in tool_call_deltas(calls)]
        chunks = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            for delta in [{"role": "assistant", "content": ""}, *deltas]
        ]
        end = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
        chunks.append({**base, "choices": [end]})
        if (payload.get("stream_options") or {}).get("include_usage"):
            chunks.append({**base, "choices": [], "usage": answer["usage"]})
        lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
        return "".join(lines).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a request still sleeping never blocks stop()
    request_queue_size = 256  # benchmarks open many connections at once
    fake: FakeModelServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            self._send(400, {}, json_bytes(error_body(400, "request body is not JSON")))
            return
        fake = self.server.fake
        headers = {name.lower(): value for name, value in self.headers.items()}
        fault = fake._arrive(self.path, payload, headers)
        try:
            status, headers, data = fake._answer(self.path, payload, fault)
        except Exception as exc:  # a failing responder shows up as a 500 the test can see
            status, headers, data = 500, {}, json_bytes(error_body(500, f"responder failed: {exc}"))
        finally:
            fake._leave()
        self._send(status, headers, data)

    def do_GET(self) -> None:
        if not self.path.rstrip("/").endswith("/models"):
            return self._send(404, {}, json_bytes(error_body(404, f"no such path: {self.path}")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        seen = RecordedRequest(self.path, {}, headers, time.monotonic())
        self.server.fake.model_list_requests.append(seen)
        self._send(200, {}, json_bytes(_MODELS))

    def _send(self, status: int, headers: dict[str, str], data: bytes) -> None:
        try:
            self.send_response(status)
            headers = dict(headers)
            self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (a timeout test): nothing left to answer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; .requests records what arrived
