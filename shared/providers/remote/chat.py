"""Any OpenAI-compatible chat endpoint (Fireworks, OpenAI, vLLM, Ollama, llama.cpp server) as a
ChatModel whose answers are JSON validated by pydantic, with one repair attempt."""

import time
from dataclasses import dataclass
from typing import Any

import openai
from pydantic import ValidationError

from shared.config import ModelSettings
from shared.errors import ModelOutputError
from shared.providers.base import ModelT
from shared.providers.remote.answers import (
    describe_error,
    parse_answer,
    repair_request,
    strip_reasoning,
)
from shared.providers.remote.errors import Endpoint, from_openai_error
from shared.providers.remote.limits import call_slots
from shared.providers.remote.streaming import TextStream
from shared.providers.remote.tool_calls import RunTool
from shared.text.tokens import count_tokens
from shared.usage import record_call

Message = dict[str, Any]


@dataclass(frozen=True)
class _Reply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    started: float  # time.monotonic() when the request was sent


class OpenAICompatibleChat:
    """ChatModel over openai.AsyncOpenAI.

    The openai client itself retries 408/409/429/5xx answers, timeouts and dropped connections
    `llm_max_retries` times with exponential back-off (0.5 s doubling, capped at 8 s), waiting
    what `retry-after-ms` / `Retry-After` ask for instead (a request for more than two minutes
    ends the retries: the bus redelivers later). So this class only bounds calls in flight,
    validates and repairs answers, records usage, and turns the final failure into
    ModelUnavailableError (transient) or a PermanentError naming what to fix.
    """

    provider = "openai-compatible"

    def __init__(self, settings: ModelSettings) -> None:
        self.model = settings.llm_model
        self._concurrency = settings.llm_concurrency
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
        self._client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url or None,  # None: OPENAI_BASE_URL or api.openai.com
            api_key=key or "not-needed",  # local servers (vLLM, Ollama) accept any key
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
        )
        self._endpoint = Endpoint(
            base_url=str(self._client.base_url).rstrip("/"),
            model=self.model,
            key_setting="ARTISAN_LLM_API_KEY",
            url_setting="ARTISAN_LLM_BASE_URL",
            model_setting="ARTISAN_LLM_MODEL",
            attempts=settings.llm_max_retries + 1,
            timeout_seconds=settings.llm_timeout_seconds,
        )

    async def complete_json(
        self, *, role: str, system: str, user: str, schema: type[ModelT]
    ) -> ModelT:
        messages: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        reply = await self._send(role, messages)
        try:
            return await self._accept(role, reply, schema)
        except ValidationError as error:
            # show the model its own answer and what was wrong with it, then ask once more
            messages += [
                {"role": "assistant", "content": strip_reasoning(reply.content)},
                {"role": "user", "content": repair_request(error)},
            ]
        repaired = await self._send(role, messages)
        try:
            return await self._accept(role, repaired, schema)
        except ValidationError as error:
            raise ModelOutputError(
                f"the model {self.model} answered the {role} call with invalid JSON, "
                f"also after a repair attempt: {describe_error(error)}"
            ) from error

    def stream_text(
        self,
        *,
        role: str,
        system: str,
        user: str,
        temperature: float = 0.2,
        tools: list[dict[str, Any]] | None = None,
        run_tool: RunTool | None = None,
    ) -> TextStream:
        """A streamed plain-text answer (chat call 1A); its usage is recorded when it ends.
        With `tools`, the model's calls are run by `run_tool` in bounded rounds."""
        return TextStream(
            self._client,
            self._endpoint,
            provider=self.provider,
            role=role,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            concurrency=self._concurrency,
            temperature=temperature,
            tools=tools,
            run_tool=run_tool,
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def _accept(self, role: str, reply: _Reply, schema: type[ModelT]) -> ModelT:
        """The validated answer; the call is recorded as ok or invalid either way."""
        try:
            result = parse_answer(reply.content, schema)
        except ValidationError:
            await self._record(role, reply, "invalid")
            raise
        await self._record(role, reply, "ok")
        return result

    async def _send(self, role: str, messages: list[Message]) -> _Reply:
        async with call_slots("llm", self._concurrency):
            started = time.monotonic()
            try:
                response = await self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,  # type: ignore[arg-type]
                    temperature=0,
                    response_format={"type": "json_object"},
                )
            except openai.APIError as exc:
                failed = _Reply("", _estimate_prompt(messages), 0, started)
                await self._record(role, failed, "error")
                raise from_openai_error(exc, self._endpoint, role) from exc
        choice = response.choices[0] if response.choices else None
        content = (choice.message.content if choice else None) or ""
        usage = response.usage
        return _Reply(
            content=content,
            prompt_tokens=usage.prompt_tokens if usage else _estimate_prompt(messages),
            completion_tokens=usage.completion_tokens if usage else count_tokens(content),
            started=started,
        )

    async def _record(self, role: str, reply: _Reply, outcome: str) -> None:
        await record_call(
            role=role,
            provider=self.provider,
            model=self.model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            started=reply.started,
            outcome=outcome,
        )


def _estimate_prompt(messages: list[Message]) -> int:
    """Tokens of the prompt when the endpoint reports no usage (some local servers omit it)."""
    return sum(count_tokens(str(message["content"])) for message in messages)
