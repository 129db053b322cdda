"""The tools one chat turn offers its answering model, and their execution.

Arguments are JSON validated by pydantic before anything runs; a bad call comes back to the
model as a message saying what to fix (it may try again, within the bounded rounds of the
provider's loop). The weather tool is offered only when switched on: in Settings, or until
something is saved there, by ARTISAN_WEATHER_TOOL.
"""

import json
import logging
from typing import Any
from uuid import UUID

import asyncpg
from pydantic import BaseModel, ValidationError

from services.chat.tools.documents import CreateDocumentArgs, ToolError, create_document
from services.chat.tools.weather import WeatherArgs, WeatherUnavailable, weather_statistics
from shared.config import model_settings

logger = logging.getLogger(__name__)
CREATE_DOCUMENT, WEATHER = "create_document", "weather_statistics"
MAX_ARGUMENT_CHARS = 2_000
_DESCRIPTIONS = {
    CREATE_DOCUMENT: "Make a stored document from an attached file; the tool reads the file "
    "itself. kind 'meeting_summary': decisions, action items with owners and dates, and open "
    "questions of a meeting transcript, each item citing its passage.",
    WEATHER: "Daily mean temperature statistics (missing days, mean, volatility, z-score "
    "anomalies) for a place given as numeric latitude/longitude and a past ISO date range of "
    "at most a year, from the Open-Meteo archive.",
}
_ARGUMENTS: dict[str, type[BaseModel]] = {CREATE_DOCUMENT: CreateDocumentArgs, WEATHER: WeatherArgs}


def tool_spec(name: str) -> dict[str, Any]:
    """The OpenAI `tools` entry: the function's name, what it does, its JSON schema."""
    schema = _ARGUMENTS[name].model_json_schema()
    return {
        "type": "function",
        "function": {"name": name, "description": _DESCRIPTIONS[name], "parameters": schema},
    }


class ChatToolBox:
    """One turn's tools: documents of its attached files; weather when switched on."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        user_id: UUID,
        turn_id: UUID,
        attachments: list[tuple[UUID, str]],
    ) -> None:
        self._pool, self._user_id, self._turn_id = pool, user_id, turn_id
        self.attachments = attachments
        names = [CREATE_DOCUMENT] if attachments else []
        if model_settings().weather_tool:  # the saved switch, reloaded live (live_models)
            names.append(WEATHER)
        self.specs = [tool_spec(name) for name in names]
        self.offered = frozenset(names)

    async def call(self, name: str, arguments: str) -> str:
        if name not in self.offered:
            return f"Error: there is no tool {name!r} here; the tools are {sorted(self.offered)}."
        try:
            return await self._run(name, _arguments(name, arguments))
        except (ToolError, WeatherUnavailable) as exc:
            return f"Error: {exc}."
        except ValidationError as exc:
            return f"Error: invalid arguments for {name}: {_problems(exc)}. Correct them and retry."

    async def _run(self, name: str, args: Any) -> str:
        logger.info("tool %s called for turn %s", name, self._turn_id)
        run = self._document if name == CREATE_DOCUMENT else weather_statistics
        return await run(args)

    async def _document(self, args: CreateDocumentArgs) -> str:
        return await create_document(
            self._pool,
            args,
            user_id=self._user_id,
            turn_id=self._turn_id,
            attached=[file_id for file_id, _ in self.attachments],
        )


def _arguments(name: str, arguments: str) -> BaseModel:
    if len(arguments) > MAX_ARGUMENT_CHARS:
        raise ToolError(f"the arguments are over {MAX_ARGUMENT_CHARS} characters")
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError as exc:
        raise ToolError(f"the arguments are not JSON ({exc})") from exc
    return _ARGUMENTS[name].model_validate(parsed)


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors()
    )
