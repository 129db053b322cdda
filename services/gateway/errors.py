"""Every error is JSON `{"detail": "<what happened, what to do>"}` (on the paths of an error
dialect main.py installs, that API's shape: OpenAI's `{"error": {"message", ...}}`, from
openai_compat/errors.py); never a bare 500. Plumbing: features raise RequestRejected or bring a
dialect; this module imports none of them."""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Annotated, Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AfterValidator
from starlette.exceptions import HTTPException as StarletteHTTPException

from shared.context_client import ContextBuildFailed, ContextUnavailable

logger = logging.getLogger(__name__)

_DEFAULT_DETAILS = {
    404: "Not found: see /docs for the API's endpoints.",
    405: "Method not allowed on this path: see /docs for the API's endpoints.",
}
# FastAPI's words for a JSON body that is not even text, said so that one knows what to do
_REWORDED = {
    "There was an error parsing the body": "The request body could not be read: send JSON"
    " encoded as UTF-8. See /docs for the expected shape."
}
DATABASE_DOWN = (
    "The database is unavailable; try again in a moment (GET /readyz shows what is down)."
)
INTERNAL_ERROR = "Internal error; it has been logged. Try again, and report it if it persists."
# connection-level failures: the request was fine, the database was not reachable
_DATABASE_ERRORS = (
    OSError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
)


class RequestRejected(Exception):
    """A request refused with its status and a detail saying what to do; nothing was stored."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


@dataclass(frozen=True)
class ErrorDialect:
    """Errors in another API's shape, on the paths that API's clients call."""

    speaks: Callable[[str], bool]  # does this path answer in the dialect?
    body: Callable[[int, str, Exception | None], dict[str, Any]]  # status, detail, error
    schema: str  # the OpenAPI component documenting the body


def storable(text: str) -> str:
    """Text PostgreSQL can hold: no NUL, and valid Unicode (JSON may carry a lone surrogate such as
    \\ud800, which no UTF-8 can encode). Refused up front, with the field named, never a 500."""
    if "\x00" in text:
        raise ValueError("contains a NUL character (\\u0000), which cannot be stored; remove it")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        raise ValueError(
            f"contains an unpaired surrogate (\\u{code:04x}), which is not valid Unicode;"
            " send the text as valid UTF-8"
        ) from None
    return text


StorableText = Annotated[str, AfterValidator(storable)]  # text a request may send to be stored


def describe_validation_errors(errors: Sequence[Any]) -> str:
    """Pydantic's error list as one sentence a person can act on."""
    parts = []
    for error in errors:
        location = [str(part) for part in error.get("loc", ()) if part != "body"]
        where = " ".join(location) if location else "request"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "Invalid request: " + "; ".join(parts) + ". See /docs for the expected shape."


def _error(
    request: Request,
    status: int,
    detail: str,
    headers: dict[str, str] | None = None,
    exc: Exception | None = None,
) -> JSONResponse:
    """The error as the caller's client reads one."""
    if dialect := _dialect_for(request.app, request.url.path):
        return JSONResponse(dialect.body(status, detail, exc), status, headers=headers)
    return JSONResponse({"detail": detail}, status, headers=headers)


def _dialect_for(app: FastAPI, path: str) -> ErrorDialect | None:
    dialects: Sequence[ErrorDialect] = getattr(app.state, "error_dialects", ())
    return next((dialect for dialect in dialects if dialect.speaks(path)), None)


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    detail = exc.detail
    if not isinstance(detail, str) or detail == _default_phrase(exc.status_code):
        detail = _DEFAULT_DETAILS.get(exc.status_code, str(detail))
    detail = _REWORDED.get(detail, detail)
    return _error(request, exc.status_code, detail, exc.headers, exc)


def _default_phrase(status_code: int) -> str:
    try:
        return HTTPStatus(status_code).phrase
    except ValueError:
        return ""


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return _error(request, 422, describe_validation_errors(exc.errors()))


async def _rejected(request: Request, exc: RequestRejected) -> JSONResponse:
    return _error(request, exc.status_code, exc.detail)


async def _context_unavailable(request: Request, exc: ContextUnavailable) -> JSONResponse:
    return _error(request, 503, str(exc))  # says how to start it


async def _context_failed(request: Request, exc: ContextBuildFailed) -> JSONResponse:
    # the context service logged the traceback; the caller learns what failed
    return _error(request, 503, f"The context service failed: {exc}. Try again.")


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    logger.warning("database unavailable during %s %s: %r", request.method, request.url.path, exc)
    return _error(request, 503, DATABASE_DOWN)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error in %s %s", request.method, request.url.path)
    return _error(request, 500, INTERNAL_ERROR)


def _document_errors_as_json(app: FastAPI) -> None:
    """The OpenAPI schema says what the handlers above send: every error as JSON ErrorResponse,
    not FastAPI's list-shaped 422, nor typed as a route's own media type (text/plain, SSE)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()  # cached by FastAPI as app.openapi_schema
            for path, operations in schema["paths"].items():
                dialect = _dialect_for(app, path)
                error = _schema_ref(dialect.schema) if dialect else _ERROR_SCHEMA
                for operation in operations.values():
                    _document_errors(operation, error, _error_models(app))
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _document_errors(
    operation: dict[str, Any], error: dict[str, str], error_models: set[str]
) -> None:
    responses = operation.get("responses", {})
    if "application/json" in operation.get("requestBody", {}).get("content", {}):
        unreadable = {**_UNREADABLE_BODY, "content": {"application/json": {"schema": error}}}
        responses.setdefault("400", unreadable)
    for response in responses.values():
        if _is_error_body(response, error_models):
            response["content"] = {"application/json": {"schema": error}}


def _schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


_ERROR_SCHEMA = _schema_ref("ErrorResponse")
_UNREADABLE_BODY = {
    "description": "a body that cannot be read as text (not UTF-8)",
    "content": {"application/json": {"schema": _ERROR_SCHEMA}},
}
_ERROR_MODELS = ("ErrorResponse", "HTTPValidationError")


def _error_models(app: FastAPI) -> set[str]:
    """The $refs a route's error responses may name: ours, FastAPI's 422, each dialect's."""
    dialects: Sequence[ErrorDialect] = getattr(app.state, "error_dialects", ())
    names = (*_ERROR_MODELS, *(dialect.schema for dialect in dialects))
    return {_schema_ref(name)["$ref"] for name in names}


def _is_error_body(response: dict[str, Any], error_models: set[str]) -> bool:
    schemas = [media.get("schema", {}) for media in response.get("content", {}).values()]
    return any(schema.get("$ref") in error_models for schema in schemas)


def install_error_handlers(app: FastAPI, dialects: Sequence[ErrorDialect] = ()) -> None:
    """Every error as JSON; on a dialect's paths (main.py passes OpenAI's), in its shape."""
    app.state.error_dialects = tuple(dialects)
    _document_errors_as_json(app)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(RequestRejected, _rejected)
    app.add_exception_handler(ContextUnavailable, _context_unavailable)
    app.add_exception_handler(ContextBuildFailed, _context_failed)
    for error_type in _DATABASE_ERRORS:
        app.add_exception_handler(error_type, _database_down)
    app.add_exception_handler(Exception, _unexpected)
