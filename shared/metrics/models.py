"""Model calls as metrics: how many per role and provider, how long they took, tokens and cost.
Fed by shared/usage.py's record_call, the one place every call (local or remote) is recorded."""

from typing import TYPE_CHECKING

from prometheus_client import Counter, Histogram

if TYPE_CHECKING:
    from shared.usage import ModelCall

# a local call takes milliseconds, a remote one up to its timeout (120 s by default)
CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

MODEL_CALLS = Counter(
    "artisan_model_calls",
    "Model calls by role, provider, model and outcome (ok | invalid | error)",
    ["role", "provider", "model", "outcome"],
)
MODEL_CALL_SECONDS = Histogram(
    "artisan_model_call_duration_seconds",
    "Duration of one model call, by role and provider",
    ["role", "provider"],
    buckets=CALL_BUCKETS,
)
MODEL_TOKENS = Counter(
    "artisan_model_tokens",
    "Tokens sent (prompt) and received (completion), by role and provider; local models'"
    " are estimated",
    ["role", "provider", "direction"],
)
MODEL_COST = Counter(
    "artisan_model_cost_usd",
    "Estimated cost of model calls in USD, from the price table (local models cost 0)",
    ["role", "provider", "model"],
)


def observe_model_call(call: "ModelCall") -> None:
    MODEL_CALLS.labels(call.role, call.provider, call.model, call.outcome).inc()
    MODEL_CALL_SECONDS.labels(call.role, call.provider).observe(call.latency_ms / 1000)
    MODEL_TOKENS.labels(call.role, call.provider, "prompt").inc(call.prompt_tokens)
    MODEL_TOKENS.labels(call.role, call.provider, "completion").inc(call.completion_tokens)
    MODEL_COST.labels(call.role, call.provider, call.model).inc(call.cost_usd)


EMBEDDING_BATCH_CALLERS = Histogram(
    "artisan_embedding_batch_callers",
    "Callers (messages, questions) whose texts one embedding call carried together",
    buckets=(1, 2, 4, 8, 16, 32, 64),
)


def observe_embedding_batch(callers: int) -> None:
    EMBEDDING_BATCH_CALLERS.observe(callers)
