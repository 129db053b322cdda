"""Every recorded model call moves the model metrics, with or without a database sink."""

import time

from prometheus_client import REGISTRY

from shared.usage import record_call

LABELS = {"role": "compress", "provider": "test-provider"}


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_a_call_is_counted_timed_and_its_tokens_added() -> None:
    calls = sample("artisan_model_calls_total", **LABELS, model="m", outcome="invalid")
    timed = sample("artisan_model_call_duration_seconds_count", **LABELS)
    prompt = sample("artisan_model_tokens_total", **LABELS, direction="prompt")
    completion = sample("artisan_model_tokens_total", **LABELS, direction="completion")

    await record_call(
        **LABELS,
        model="m",
        prompt_tokens=120,
        completion_tokens=30,
        started=time.monotonic(),
        outcome="invalid",
    )

    assert sample("artisan_model_calls_total", **LABELS, model="m", outcome="invalid") == calls + 1
    assert sample("artisan_model_call_duration_seconds_count", **LABELS) == timed + 1
    assert sample("artisan_model_tokens_total", **LABELS, direction="prompt") == prompt + 120
    assert sample("artisan_model_tokens_total", **LABELS, direction="completion") == completion + 30
