"""What each model call may write back, and how long it may take: every call is bounded.

A model that rambles stops at its role's output budget (`max_tokens`), and the call's deadline
follows from the budget: reading the prompt and writing the whole budget at the pace of a slow
CPU model (SmolLM2 on two cores reads ~70 and writes ~20 tokens a second), never past the
configured per-call timeout. So a model that stalls or rambles costs one bounded attempt."""

# output tokens per role: room for the answer its prompt asks for, with a margin
OUTPUT_TOKENS = {
    "classify": 128,  # {"file_type", "reason": one sentence}
    "chunk": 3_000,  # a 20,000-character window's chunks: offsets, title and summary each
    "compress": 600,  # an Artisan Cut (2A): 2-5 sentences, an arc, a salience
    "verify": 600,  # 2B: the same cut, corrected
    "summarise": 600,
    "memory": 600,  # the facts a turn states
    "check": 800,  # 1B: the answer's sentences, kept or removed
    "answer": 1_200,  # 1A: the streamed answer
    "test": 32,  # Settings' "Test connection"
}
DEFAULT_OUTPUT_TOKENS = 600
SLOWEST_READ_PER_SECOND = 40.0
SLOWEST_WRITE_PER_SECOND = 8.0
CONNECT_SECONDS = 10.0


def output_budget(role: str) -> int:
    return OUTPUT_TOKENS.get(role, DEFAULT_OUTPUT_TOKENS)


def deadline_seconds(prompt_tokens: int, max_tokens: int, ceiling: float) -> float:
    """How long one call may take: the prompt read and the budget written slowly, at most
    `ceiling` (ARTISAN_LLM_TIMEOUT_SECONDS)."""
    slow = (
        CONNECT_SECONDS
        + prompt_tokens / SLOWEST_READ_PER_SECOND
        + max_tokens / SLOWEST_WRITE_PER_SECOND
    )
    return min(ceiling, slow)
