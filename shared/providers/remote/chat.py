"""Any OpenAI-compatible chat endpoint (Fireworks, OpenAI, vLLM, Ollama, llama.cpp server) as a
ChatModel whose answers are JSON validated by pydantic, with one repair attempt. Every call is
bounded: its role's output budget, a deadline that follows from it (budgets.py), and the reply's
shape asked for the way the endpoint takes it (structured.py)."""

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai
from pydantic import ValidationError

from shared.config import ModelSettings
from shared.errors import ModelOutputError, ModelTooSlowError, NotAChatReplyError
from shared.providers.base import ModelT
from shared.providers.remote.answers import (
    describe_error,
    parse_answer,
    repair_request,
    strip_reasoning,
)
from shared.providers.remote.budgets import deadline_seconds, output_budget
from shared.providers.remote.errors import Endpoint, from_openai_error, is_transient_status
from shared.providers.remote.limits import call_slots
from shared.providers.remote.retry import with_retries
from shared.providers.remote.streaming import TextStream
from shared.providers.remote.structured import dialect_of
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
    cut_off: bool = False  # the model wrote its whole output budget without finishing


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
        self._timeout = settings.llm_timeout_seconds
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
        self._client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url or None,  # None: OPENAI_BASE_URL or api.openai.com
            api_key=key or "not-needed",  # local servers (vLLM, Ollama) accept any key
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
        )
        # JSON calls retry 429s, 5xx and dropped connections themselves (not a call that ran
        # past its deadline: that is a stall, and the same call would stall again)
        self._once = self._client.with_options(max_retries=0)
        self._max_retries = settings.llm_max_retries
        self._dialect = dialect_of(str(self._client.base_url), self.model)
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
        self,
        *,
        role: str,
        system: str,
        user: str,
        schema: type[ModelT],
        max_tokens: int | None = None,
    ) -> ModelT:
        budget = max_tokens or output_budget(role)
        messages: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        reply = await self._send(role, messages, schema, budget)
        try:
            return await self._accept(role, reply, schema)
        except ValidationError as error:
            # show the model its own answer and what was wrong with it, then ask once more
            messages += [
                {"role": "assistant", "content": strip_reasoning(reply.content)},
                {"role": "user", "content": repair_request(error)},
            ]
        repaired = await self._send(role, messages, schema, budget)
        try:
            return await self._accept(role, repaired, schema)
        except ValidationError as error:
            invalid = self._invalid(role, repaired, error, budget)
            raise ModelOutputError(invalid, model=self.model, role=role) from error

    def _invalid(self, role: str, reply: _Reply, error: ValidationError, budget: int) -> str:
        if reply.cut_off:
            return (
                f"the model {self.model} wrote its whole budget of {budget} tokens"
                f" for the {role} call without finishing its answer, also after a repair"
                " attempt: choose a model that follows instructions more closely"
            )
        return (
            f"the model {self.model} answered the {role} call with invalid JSON, "
            f"also after a repair attempt: {describe_error(error)}"
        )

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
            dialect=self._dialect,
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

    async def _send(
        self, role: str, messages: list[Message], schema: type[ModelT], budget: int
    ) -> _Reply:
        async with call_slots("llm", self._concurrency):
            while True:
                started = time.monotonic()
                try:
                    response = await with_retries(
                        lambda: self._create(messages, schema, budget),
                        max_retries=self._max_retries,
                        is_transient=_worth_retrying,
                        headers_of=_headers_of,
                    )
                except openai.BadRequestError as exc:
                    if self._dialect.adapt(str(exc.message)):
                        continue  # asked again at once, the way this endpoint takes it
                    await self._failed(role, messages, started)
                    raise from_openai_error(exc, self._endpoint, role) from exc
                except openai.APITimeoutError as exc:
                    await self._failed(role, messages, started)
                    raise self._too_slow(role, messages, budget) from exc
                except openai.APIError as exc:
                    await self._failed(role, messages, started)
                    raise from_openai_error(exc, self._endpoint, role) from exc
                if not hasattr(response, "choices"):  # the SDK hands back a body it could not parse
                    await self._failed(role, messages, started)
                    raise self._not_a_chat_reply(role)
                return _reply_of(response, messages, started)

    def _too_slow(self, role: str, messages: list[Message], budget: int) -> ModelTooSlowError:
        deadline = deadline_seconds(_estimate_prompt(messages), budget, self._timeout)
        return ModelTooSlowError(
            f"the model {self.model} did not finish the {role} call within {deadline:.3g} s"
            f" (reading its prompt and writing at most {budget} tokens at a slow CPU model's"
            " pace): choose a faster model, or let the offline rules do ingestion"
            " (ARTISAN_LLM_ROLES=answers)",
            model=self.model,
            role=role,
        )

    def _not_a_chat_reply(self, role: str) -> NotAChatReplyError:
        return NotAChatReplyError(
            f"{self._endpoint.base_url} answered the {role} call, but not with an OpenAI-compatible"
            " chat reply (a web page?): check the base URL, which usually ends in /v1",
            model=self.model,
            role=role,
        )

    async def _create(self, messages: list[Message], schema: type[ModelT], budget: int) -> Any:
        """One bounded request: the output budget, and a deadline that follows from it."""
        system, shape = self._dialect.request(messages[0]["content"], schema)
        sent = [{"role": "system", "content": system}, *messages[1:]]
        return await self._once.chat.completions.create(
            model=self.model,
            messages=sent,  # type: ignore[arg-type]
            temperature=0,
            timeout=deadline_seconds(_estimate_prompt(sent), budget, self._timeout),
            **{self._dialect.budget_parameter: budget},
            **shape,
        )

    async def _failed(self, role: str, messages: list[Message], started: float) -> None:
        await self._record(role, _Reply("", _estimate_prompt(messages), 0, started), "error")

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


def _worth_retrying(exc: BaseException) -> bool:
    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and is_transient_status(exc.status_code)


def _headers_of(exc: BaseException) -> Mapping[str, str] | None:
    return exc.response.headers if isinstance(exc, openai.APIStatusError) else None


def _reply_of(response: Any, messages: list[Message], started: float) -> _Reply:
    choice = response.choices[0] if response.choices else None
    content = (choice.message.content if choice else None) or ""
    usage = response.usage
    return _Reply(
        content=content,
        prompt_tokens=usage.prompt_tokens if usage else _estimate_prompt(messages),
        completion_tokens=usage.completion_tokens if usage else count_tokens(content),
        started=started,
        cut_off=bool(choice and choice.finish_reason == "length"),
    )


def _estimate_prompt(messages: list[Message]) -> int:
    """Tokens of the prompt when the endpoint reports no usage (some local servers omit it)."""
    return sum(count_tokens(str(message["content"])) for message in messages)
