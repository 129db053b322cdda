"""The probe says how a call failed in kinds and an HTTP status, never in the endpoint's words:
the gateway words the kinds for the admin (tests/unit/gateway/test_connection_summary.py)."""

import httpx
import openai
import pytest

from shared.config import ModelSettings
from shared.errors import ModelOutputError, ModelTooSlowError, ModelUnavailableError
from shared.models.probe import Failure, _failed, probe_embeddings


def refused(status: int) -> ModelUnavailableError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, request=request, text="internal detail: sk-secret")
    cause = openai.APIStatusError("sk-secret", response=response, body=None)
    try:
        raise ModelUnavailableError("the endpoint said: sk-secret") from cause
    except ModelUnavailableError as exc:
        return exc


@pytest.mark.parametrize(
    ("error", "failure", "status"),
    [
        (ModelTooSlowError("slow"), Failure.TOO_SLOW, 200),
        (ModelOutputError("not the JSON"), Failure.WRONG_OUTPUT, 200),
        (refused(503), Failure.REFUSED, 503),
        (TimeoutError(), Failure.NO_ANSWER, None),
        (ModelUnavailableError("gave up"), Failure.UNREADABLE, None),
    ],
)
def test_a_failure_is_told_by_its_kind_and_status(
    error: Exception, failure: Failure, status: int | None
) -> None:
    probe = _failed(error, "writer-large")
    assert (probe.failure, probe.status, probe.model) == (failure, status, "writer-large")
    assert probe.detail == ""  # what the endpoint or the client said stays here


async def test_a_setting_of_ours_that_is_wrong_is_told_in_our_words() -> None:
    settings = ModelSettings(
        embed_provider="openai", openai_api_key="k", openai_embed_model="", model_hosts_allowed=""
    )
    probe = await probe_embeddings(settings, deadline_seconds=1)
    assert probe.failure is Failure.SETTINGS and "ARTISAN_OPENAI_EMBED_MODEL" in probe.detail
