"""Tool calls in a streamed chat completion (OpenAI wire format): the pieces collected into
whole calls, and the messages that carry a round of calls and their results back to the model.

A call streams as deltas under its `index`: the first names its `id` and function, later ones
append pieces of the JSON `arguments`.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]
RunTool = Callable[[str, str], Awaitable[str]]
MAX_TOOL_ROUNDS = 3  # rounds of calls before the model must answer in words
MAX_CALLS_PER_ROUND = 4
MAX_ARGUMENT_CHARS = 8_000  # bounded memory whatever the model streams


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    size: int = 0


class ToolCallCollector:
    """The calls of one streamed completion, assembled from their deltas."""

    def __init__(self) -> None:
        self._calls: dict[int, _Call] = {}

    def feed(self, deltas: list[Any]) -> None:
        for delta in deltas:
            call = self._calls.setdefault(delta.index, _Call())
            call.id = delta.id or call.id
            function = delta.function
            if function is None:
                continue
            call.name = function.name or call.name
            if function.arguments and call.size < MAX_ARGUMENT_CHARS:
                call.arguments.append(function.arguments)
                call.size += len(function.arguments)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def assistant_message(self) -> Message:
        """The model's turn that asked for the calls, as the next request must repeat it."""
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call.id or f"call_{index}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": "".join(call.arguments)},
                }
                for index, call in self._ordered()
            ],
        }

    async def results(self, run: RunTool) -> list[Message]:
        """One `tool` message per call, in order; calls past the per-round limit are refused."""
        messages = []
        for number, (index, call) in enumerate(self._ordered()):
            if number < MAX_CALLS_PER_ROUND:
                content = await run(call.name, "".join(call.arguments))
            else:
                content = f"Error: at most {MAX_CALLS_PER_ROUND} tool calls at a time."
            messages.append(
                {"role": "tool", "tool_call_id": call.id or f"call_{index}", "content": content}
            )
        return messages

    def _ordered(self) -> list[tuple[int, _Call]]:
        return sorted(self._calls.items())
