"""Every error is JSON `{"detail": "<what happened, what to do>"}`; never a bare 500."""

import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Annotated, Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AfterValidator
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.gateway.uploads import UploadRejected
from shared.context_client import ContextBuildFailed, ContextUnavailable

logger = logging.getLogger(__name__)

_DEFAULT_DETAILS = {
    404: "Not found: see /docs for the API's endpoints.",
    405: "Method not allowed on this path: see /docs for the API's endpoints.",
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


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    detail = exc.detail
    if not isinstance(detail, str) or detail == _default_phrase(exc.status_code):
        detail = _DEFAULT_DETAILS.get(exc.status_code, str(detail))
    return JSONResponse({"detail": detail}, exc.status_code, headers=exc.headers)


def _default_phrase(status_code: int) -> str:
    try:
        return HTTPStatus(status_code).phrase
    except ValueError:
        return ""


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"detail": describe_validation_errors(exc.errors())}, 422)


async def _upload_rejected(request: Request, exc: UploadRejected) -> JSONResponse:
    return JSONResponse({"detail": exc.detail}, exc.status_code)


async def _context_unavailable(request: Request, exc: ContextUnavailable) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, 503)  # says how to start it


async def _context_failed(request: Request, exc: ContextBuildFailed) -> JSONResponse:
    # the context service logged the traceback; the caller learns what failed
    return JSONResponse({"detail": f"The context service failed: {exc}. Try again."}, 503)


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    logger.warning("database unavailable during %s %s: %r", request.method, request.url.path, exc)
    return JSONResponse({"detail": DATABASE_DOWN}, 503)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error in %s %s", request.method, request.url.path)
    return JSONResponse({"detail": INTERNAL_ERROR}, 500)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(UploadRejected, _upload_rejected)
    app.add_exception_handler(ContextUnavailable, _context_unavailable)
    app.add_exception_handler(ContextBuildFailed, _context_failed)
    for error_type in _DATABASE_ERRORS:
        app.add_exception_handler(error_type, _database_down)
    app.add_exception_handler(Exception, _unexpected)
