"""How a call is put to an endpoint, by what it accepts (its dialect).

A structured reply is asked for as a JSON schema the server enforces (OpenAI's `json_schema`;
llama.cpp's server turns it into a grammar, so even a small model answers in shape), else as any
JSON object (`json_object`), else as plain text with the schema in the prompt. The output budget
goes as `max_tokens`, or as `max_completion_tokens` for the endpoints that take only that (OpenAI's
reasoning models). An endpoint that refuses either is asked again at once the way it takes, and
that is remembered for the endpoint (base URL and model) for as long as the process runs."""

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

FORMATS = ("json_schema", "json_object", "text")
# what servers say when they do not take a response_format (OpenAI, vLLM, Ollama, LM Studio)
_REFUSED_FORMAT = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)
_COMPLETION_TOKENS = "max_completion_tokens"


@dataclass
class Dialect:
    format_index: int = 0
    budget_parameter: str = "max_tokens"

    @property
    def format(self) -> str:
        return FORMATS[self.format_index]

    def adapt(self, refusal: str) -> bool:
        """Change what the endpoint refused (a 400's message); False when nothing is left to."""
        if _COMPLETION_TOKENS in refusal and self.budget_parameter != _COMPLETION_TOKENS:
            self.budget_parameter = _COMPLETION_TOKENS
            return True
        if _REFUSED_FORMAT.search(refusal) and self.format_index + 1 < len(FORMATS):
            self.format_index += 1
            return True
        return False

    def request(self, system: str, schema: type[BaseModel] | None) -> tuple[str, dict[str, Any]]:
        """The system prompt and the request's format field, for a reply of `schema`."""
        if schema is None:
            return system, {}
        if self.format == "json_schema":
            json_schema = {"name": schema.__name__, "schema": schema.model_json_schema()}
            return system, {"response_format": {"type": "json_schema", "json_schema": json_schema}}
        if self.format == "json_object":
            return system, {"response_format": {"type": "json_object"}}
        return _schema_in_prompt(system, schema), {}


_dialects: dict[tuple[str, str], Dialect] = {}


def dialect_of(base_url: str, model: str) -> Dialect:
    return _dialects.setdefault((base_url, model), Dialect())


def forget_dialects() -> None:
    """Meet every endpoint afresh (its settings were saved again: it may be another server)."""
    _dialects.clear()


def _schema_in_prompt(system: str, schema: type[BaseModel]) -> str:
    shape = json.dumps(schema.model_json_schema(), separators=(",", ":"))
    return f"{system}\n\nAnswer with one JSON object, nothing else, following this schema:\n{shape}"
