"""Pure helpers of the remote providers: answer extraction, batching, Retry-After."""

import email.utils
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from shared.providers.remote.answers import extract_json, parse_answer, repair_request
from shared.providers.remote.batching import clip_to_tokens, token_batches
from shared.providers.remote.retry import backoff_seconds, retry_after_seconds
from shared.text.tokens import count_tokens


class Cut(BaseModel):
    chunk_essence: str
    salience_score: int


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"a": 1}', '{"a": 1}'),
        ('<think>\n{"draft": true}\n</think>\n{"a": 1}', '{"a": 1}'),
        ('<THINK>x</THINK>```JSON\n{"a": 1}\n```', '{"a": 1}'),
        ('```\n{"a": 1}\n```', '{"a": 1}'),
        ('thinking…</think>\n\n{"a": 1}', '{"a": 1}'),
        ('The answer is {"a": {"b": 2}} as requested.', '{"a": {"b": 2}}'),
        ("[1, 2]", "[1, 2]"),
        ("no json here", "no json here"),
    ],
)
def test_extract_json(content: str, expected: str) -> None:
    assert extract_json(content) == expected


def test_repair_request_lists_every_problem_and_asks_for_json_only() -> None:
    with pytest.raises(ValidationError) as failure:
        parse_answer('{"salience_score": "high"}', Cut)
    request = repair_request(failure.value)
    assert "- chunk_essence: Field required" in request
    assert "- salience_score: Input should be a valid integer" in request
    assert "corrected JSON object only" in request


@given(st.lists(st.text(max_size=300), max_size=60), st.integers(1, 10), st.integers(1, 200))
def test_token_batches_cover_every_text_once_in_order_within_limits(
    texts: list[str], max_items: int, max_tokens: int
) -> None:
    batches = token_batches(texts, max_items=max_items, max_tokens=max_tokens)
    assert [i for batch in batches for i in batch] == list(range(len(texts)))
    for batch in batches:
        assert 1 <= len(batch) <= max_items
        tokens = sum(count_tokens(texts[i]) for i in batch)
        assert tokens <= max_tokens or len(batch) == 1  # an oversized text travels alone


def test_clip_to_tokens_keeps_the_start_within_the_budget() -> None:
    text = "evidence " * 10_000
    clipped = clip_to_tokens(text, 500)
    assert text.startswith(clipped) and 400 <= count_tokens(clipped) <= 500
    assert clip_to_tokens("short", 500) == "short"


def test_retry_after_in_seconds_milliseconds_or_as_a_date() -> None:
    assert retry_after_seconds({"Retry-After": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None
    in_three_seconds = email.utils.formatdate(time.time() + 3, usegmt=True)
    assert 1.5 < retry_after_seconds({"Retry-After": in_three_seconds}) <= 3.0  # type: ignore[operator]


def test_backoff_honours_retry_after_but_not_an_excessive_one() -> None:
    assert backoff_seconds(0, {"Retry-After": "1"}) == 1.0
    assert backoff_seconds(0, {"Retry-After": "600"}) is None  # the bus retries that later
    assert 0.375 <= backoff_seconds(0) <= 0.5  # type: ignore[operator]
    assert 6.0 <= backoff_seconds(10) <= 8.0  # type: ignore[operator]
