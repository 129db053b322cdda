"""Splitting texts into embedding requests within an API's limits, with offline token estimates
(shared.text.tokens errs high, so a budget it accepts the API accepts too)."""

from collections.abc import Sequence

from shared.text.tokens import count_tokens


def token_batches(texts: Sequence[str], *, max_items: int, max_tokens: int) -> list[range]:
    """Consecutive index ranges, each within both limits; a text alone over `max_tokens` still
    gets a request of its own (the API truncates or rejects it, not us)."""
    if max_items < 1 or max_tokens < 1:
        raise ValueError("a batch must allow at least one text and one token")
    batches: list[range] = []
    start, tokens = 0, 0
    for index, text in enumerate(texts):
        cost = count_tokens(text)
        if index > start and (index - start >= max_items or tokens + cost > max_tokens):
            batches.append(range(start, index))
            start, tokens = index, 0
        tokens += cost
    if start < len(texts):
        batches.append(range(start, len(texts)))
    return batches


def clip_to_tokens(text: str, max_tokens: int) -> str:
    """The start of `text` within `max_tokens`, for APIs that reject over-long inputs."""
    tokens = count_tokens(text)
    while tokens > max_tokens:
        # cut proportionally, a little more than needed, so this converges in a step or two
        text = text[: int(len(text) * max_tokens / tokens * 0.95)]
        tokens = count_tokens(text)
    return text


def non_empty(text: str) -> str:
    """Embedding APIs reject empty strings; a space embeds as 'nothing' without failing a batch."""
    return text if text else " "
