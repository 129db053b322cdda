"""`artisan upload` over the server's upload rate: a 429 with Retry-After is waited out and the
file sent again; a 429 without one (all streams open) and other refusals are not retried."""

import httpx
import pytest

from shared.cli import upload

PART = ("notes.md", b"# Notes", "text/markdown")


def gateway(answers: list[httpx.Response]) -> tuple[httpx.AsyncClient, list[int]]:
    sent: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(len(sent))
        return answers[min(len(sent) - 1, len(answers) - 1)]

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer), base_url="http://gw")
    return client, sent


@pytest.fixture(autouse=True)
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upload, "MAX_RETRY_AFTER_SECONDS", 0.01)


async def test_a_rate_limited_upload_waits_and_is_sent_again() -> None:
    limited = httpx.Response(429, headers={"Retry-After": "3"}, json={"detail": "Try again"})
    accepted = httpx.Response(202, json={"items": [{"id": "f"}]})
    client, sent = gateway([limited, limited, accepted])
    async with client:
        response = await upload.send_when_allowed(client, PART)
    assert response.status_code == 202
    assert len(sent) == 3


async def test_refusals_that_waiting_cannot_fix_are_returned_at_once() -> None:
    for refused in [
        httpx.Response(429, json={"detail": "Too many open streams"}),  # no Retry-After
        httpx.Response(413, json={"detail": "Storage quota reached"}),
    ]:
        client, sent = gateway([refused])
        async with client:
            response = await upload.send_when_allowed(client, PART)
        assert response.status_code == refused.status_code
        assert len(sent) == 1


async def test_the_retries_are_bounded() -> None:
    limited = httpx.Response(429, headers={"Retry-After": "1"}, json={"detail": "Try again"})
    client, sent = gateway([limited])
    async with client:
        response = await upload.send_when_allowed(client, PART)
    assert response.status_code == 429
    assert len(sent) == upload.RATE_LIMIT_RETRIES
