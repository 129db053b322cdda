"""The language-model server's figures in the gateway's /metrics, under Artisan's names: how fast
it reads prompts and writes tokens, what it is decoding and what waits for a slot. Read from
llama.cpp's own Prometheus /metrics (its server started with `--metrics`) each time the gateway's
/metrics is scraped, with a short timeout; a model server that is not set or does not answer adds
no series at all (absent, never zero: an alert on zero would believe an idle model that is gone).

Speeds are the server's counters divided (tokens over the seconds spent on them, since it
started), not llama.cpp's own per-second gauges: those are reset by every read of its /metrics,
so two readers (two gateway replicas, or Prometheus beside the gateway) would halve each other's.
For a recent speed, divide the counters' rates: rate(artisan_model_server_generated_tokens_total
[5m]) / rate(artisan_model_server_generation_seconds_total[5m])."""

import logging
from collections.abc import Iterator, Mapping

import httpx
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families

logger = logging.getLogger(__name__)
READ_TIMEOUT_SECONDS = 2.0  # a scrape must stay quick; Prometheus gives up after 10 s

# llama.cpp's gauges of the moment → Artisan's name and help
_GAUGES = {
    "llamacpp:requests_processing": (
        "artisan_model_requests_processing",
        "Requests the model server is decoding now (at most its parallel slots)",
    ),
    "llamacpp:requests_deferred": (
        "artisan_model_requests_waiting",
        "Requests waiting at the model server for a free slot (its queue)",
    ),
}
# llama.cpp's counters (sample names) → Artisan's counter name (without _total) and help
_COUNTERS = {
    "llamacpp:prompt_tokens_total": (
        "artisan_model_server_prompt_tokens",
        "Prompt tokens the model server read (cached ones excluded), since it started",
    ),
    "llamacpp:prompt_seconds_total": (
        "artisan_model_server_prompt_seconds",
        "Seconds the model server spent reading prompts, since it started",
    ),
    "llamacpp:tokens_predicted_total": (
        "artisan_model_server_generated_tokens",
        "Tokens the model server generated, since it started",
    ),
    "llamacpp:tokens_predicted_seconds_total": (
        "artisan_model_server_generation_seconds",
        "Seconds the model server spent generating, since it started",
    ),
}
# Artisan's speed → (tokens counter, seconds counter) it divides, and help
_SPEEDS = {
    "artisan_model_prompt_tokens_per_second": (
        "llamacpp:prompt_tokens_total",
        "llamacpp:prompt_seconds_total",
        "Prompt tokens the model server reads per second of reading, on average since it started",
    ),
    "artisan_model_generated_tokens_per_second": (
        "llamacpp:tokens_predicted_total",
        "llamacpp:tokens_predicted_seconds_total",
        "Tokens the model server writes per second of generating, on average since it started",
    ),
}


def model_server_figures(text: str) -> list[Metric]:
    """llama.cpp's /metrics text as Artisan's metric families; a figure the text lacks is left
    out, and so is a speed before the server has spent any time on that work."""
    values = _unlabelled_samples(text)
    found: list[Metric] = []
    for source, (name, help_text) in _GAUGES.items():
        if source in values:
            found.append(GaugeMetricFamily(name, help_text, value=values[source]))
    for source, (name, help_text) in _COUNTERS.items():
        if source in values:
            found.append(CounterMetricFamily(name, help_text, value=values[source]))
    for name, (tokens, seconds, help_text) in _SPEEDS.items():
        if values.get(seconds, 0) > 0 and tokens in values:
            found.append(GaugeMetricFamily(name, help_text, value=values[tokens] / values[seconds]))
    return found


def _unlabelled_samples(text: str) -> Mapping[str, float]:
    """Sample name → value (llama.cpp's samples carry no labels; one with labels is not ours)."""
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


class ModelServerCollector:
    """Reads the model server's /metrics when collected (a scrape of the gateway's /metrics)."""

    def __init__(self, url: str, timeout: float = READ_TIMEOUT_SECONDS) -> None:
        self.url = url
        self.timeout = timeout

    def describe(self) -> list[Metric]:
        return []  # registering must not read the server: its names are found on each scrape

    def collect(self) -> Iterator[Metric]:
        try:
            response = httpx.get(self.url, timeout=self.timeout)
            response.raise_for_status()
            figures = model_server_figures(response.text)
        except (httpx.HTTPError, ValueError) as exc:  # away, slow, or not llama.cpp's format
            logger.debug("no model server figures from %s: %r", self.url, exc)
            return
        yield from figures


def model_server_exposition(url: str) -> bytes:
    """The model server's figures in Prometheus's text format, to follow the process's own;
    nothing when no URL is set or it does not answer."""
    if not url:
        return b""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ModelServerCollector(url))
    return generate_latest(registry)
