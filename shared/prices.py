"""What model calls cost: USD per million tokens (input, output) of the models we know."""

# extend or override with ARTISAN_PRICES='{"model": [in, out]}'
DEFAULT_PRICES = {
    "accounts/fireworks/models/qwen3-235b-a22b": (0.22, 0.88),
    "gpt-4o-mini": (0.15, 0.60),
    "voyage-3-large": (0.18, 0.0),
    "text-embedding-3-small": (0.02, 0.0),
}


def estimated_cost_usd(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: dict[str, tuple[float, float]],
) -> float:
    """Estimated cost of one call from the price table (0 for unknown and local models)."""
    per_input, per_output = {**DEFAULT_PRICES, **prices}.get(model, (0.0, 0.0))
    return (prompt_tokens * per_input + completion_tokens * per_output) / 1_000_000
