"""Turning a chat model's text into a validated pydantic object, and asking it to repair one."""

import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

ModelT = TypeVar("ModelT", bound=BaseModel)

# Qwen3 and other reasoning models put their thinking before the answer
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_CLOSING_THINK = "</think>"
_FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)
_ERRORS_SHOWN = 5  # a repair request quotes at most this many validation errors


def strip_reasoning(content: str) -> str:
    """The answer without the model's <think>…</think> reasoning."""
    text = _THINKING.sub("", content)
    if _CLOSING_THINK in text:
        # some chat templates open the <think> block themselves, so only its end is in the answer
        text = text.rsplit(_CLOSING_THINK, 1)[1]
    return text.strip()


def extract_json(content: str) -> str:
    """The JSON text inside a model's answer: without reasoning blocks, fences or prose."""
    text = strip_reasoning(content)
    fenced = _FENCED.search(text)
    if fenced:
        text = fenced.group(1)
    text = text.strip()
    if text and text[0] not in "{[":
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            text = text[start : end + 1]
    return text


def parse_answer(content: str, schema: type[ModelT]) -> ModelT:
    """The validated object; raises pydantic.ValidationError (invalid JSON included)."""
    return schema.model_validate_json(extract_json(content))


def describe_error(error: ValidationError) -> str:
    """The first problem, e.g. "salience_score: Input should be less than or equal to 10"."""
    return _describe(error.errors(include_url=False)[0])


def repair_request(error: ValidationError) -> str:
    """The user message that shows the model what was wrong with its answer."""
    problems = error.errors(include_url=False)
    listed = "\n".join(f"- {_describe(problem)}" for problem in problems[:_ERRORS_SHOWN])
    more = len(problems) - _ERRORS_SHOWN
    if more > 0:
        listed += f"\n- … and {more} more"
    return (
        "Your answer could not be used; validation failed with:\n"
        f"{listed}\n"
        "Reply again with the corrected JSON object only: no explanation, no code fences."
    )


def _describe(problem: ErrorDetails) -> str:
    location = ".".join(str(part) for part in problem.get("loc", ()))
    return f"{location}: {problem['msg']}" if location else str(problem["msg"])
