"""The model server's figures in the gateway's /metrics: llama.cpp's text read under Artisan's
names, speeds from its counters, and nothing at all (not zeros) when it is away, slow or unset.
The embedded server's threads follow the CPUs this process may use, or the setting."""

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from services.gateway import metrics as metrics_route
from shared.launcher import embedded_model
from shared.launcher.embedded_model import EmbeddedModel, start_model
from shared.launcher.sizing import available_cpus
from shared.metrics.model_server import model_server_exposition, model_server_figures
from shared.models.server_settings import ModelServerSettings

# llama.cpp's /metrics (xllamacpp's server with endpoint_metrics) after one chat completion
LLAMA_METRICS = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed, excluding cached tokens
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 31
# HELP llamacpp:prompt_seconds_total Total time spent processing prompts
# TYPE llamacpp:prompt_seconds_total counter
llamacpp:prompt_seconds_total 0.174122
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 11
# HELP llamacpp:tokens_predicted_seconds_total Total time spent generating tokens
# TYPE llamacpp:tokens_predicted_seconds_total counter
llamacpp:tokens_predicted_seconds_total 0.125223
# HELP llamacpp:n_tokens_max Largest observed sequence length (prompt + generation)
# TYPE llamacpp:n_tokens_max counter
llamacpp:n_tokens_max 41
# HELP llamacpp:prompt_tokens_seconds Average prompt throughput in tokens/s
# TYPE llamacpp:prompt_tokens_seconds gauge
llamacpp:prompt_tokens_seconds 178.036
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 79.8575
# HELP llamacpp:requests_processing Number of requests processing
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:requests_deferred Number of requests deferred
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 3
"""


def samples(exposition: str | bytes) -> dict[str, float]:
    text = exposition.decode() if isinstance(exposition, bytes) else exposition
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def test_llama_cpp_figures_under_artisan_names() -> None:
    found = {s.name: s.value for f in model_server_figures(LLAMA_METRICS) for s in f.samples}
    assert found["artisan_model_requests_processing"] == 1
    assert found["artisan_model_requests_waiting"] == 3
    assert found["artisan_model_prompt_tokens_per_second"] == pytest.approx(31 / 0.174122)
    assert found["artisan_model_generated_tokens_per_second"] == pytest.approx(11 / 0.125223)
    assert found["artisan_model_server_generated_tokens_total"] == 11
    assert found["artisan_model_server_generation_seconds_total"] == pytest.approx(0.125223)
    assert found["artisan_model_server_prompt_tokens_total"] == 31
    assert all(name.startswith("artisan_model_") for name in found)


def test_no_speed_before_the_server_has_worked() -> None:
    idle = LLAMA_METRICS.replace(" 0.174122", " 0").replace(" 0.125223", " 0")
    found = {s.name for f in model_server_figures(idle) for s in f.samples}
    assert "artisan_model_prompt_tokens_per_second" not in found
    assert "artisan_model_generated_tokens_per_second" not in found
    assert "artisan_model_requests_waiting" in found


def test_a_figure_the_server_does_not_give_is_left_out() -> None:
    assert not model_server_figures("# TYPE other gauge\nother 1\n")


@contextmanager
def metrics_server(body: str, *, status: int = 200, delay: float = 0.0) -> Iterator[str]:
    """A /metrics on 127.0.0.1 answering `body` after `delay` seconds; its URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay)
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with suppress(BrokenPipeError):  # the reader gave up on a slow answer
                self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/metrics"
    finally:
        server.shutdown()
        server.server_close()


def test_the_figures_are_read_from_the_server() -> None:
    with metrics_server(LLAMA_METRICS) as url:
        found = samples(model_server_exposition(url))
    assert found["artisan_model_requests_waiting"] == 3
    assert "llamacpp:requests_deferred" not in found  # Artisan's names only


@pytest.mark.parametrize(
    "answer",
    [
        lambda: metrics_server("not found", status=404),
        lambda: metrics_server("this is { not prometheus"),
        lambda: metrics_server(LLAMA_METRICS, delay=3),  # past the read timeout
    ],
    ids=["404", "not-prometheus", "too-slow"],
)
def test_a_server_that_does_not_answer_adds_nothing(answer: Callable[[], Any]) -> None:
    started = time.monotonic()
    with answer() as url:
        assert model_server_exposition(url) == b""
    assert time.monotonic() - started < 6


def test_no_server_set_or_none_listening_adds_nothing() -> None:
    assert model_server_exposition("") == b""
    with metrics_server(LLAMA_METRICS) as url:
        pass  # closed: nothing listens there now
    assert model_server_exposition(url) == b""


def test_the_gateway_metrics_follow_its_own_with_the_model_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with metrics_server(LLAMA_METRICS) as url:
        settings = ModelServerSettings(model_metrics_url=url)
        monkeypatch.setattr(metrics_route, "model_server_settings", lambda: settings)
        body = metrics_route.metrics().body
    found = samples(body)  # one exposition that parses as a whole
    assert found["artisan_model_generated_tokens_per_second"] > 0
    assert "python_info" in found  # the process's own, first
    monkeypatch.setattr(metrics_route, "model_server_settings", ModelServerSettings)
    without_model = samples(metrics_route.metrics().body)
    assert not any(name.startswith("artisan_model_requests") for name in without_model)


def test_the_embedded_model_uses_the_cpus_this_process_may_run_on() -> None:
    assert available_cpus() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("threads", [0, 3])
def test_the_threads_setting_overrides_the_cpu_count(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, threads: int
) -> None:
    monkeypatch.setattr(embedded_model, "model_path", lambda name: tmp_path / "m.gguf")
    monkeypatch.setattr(EmbeddedModel, "start", lambda self: None)
    settings = ModelServerSettings(model_file="m.gguf", model_threads=threads)
    model = start_model(settings, tmp_path)
    assert model is not None
    assert model.threads == (threads or available_cpus())
    args = model._args()
    assert args[args.index("--threads") + 1] == str(model.threads)
