"""OpenAI's error shape, `{"error": {"message", "type", "param", "code"}}`, for the paths OpenAI's
clients call (their SDKs read `error.message`): main.py installs OPENAI_ERRORS, so errors.py
answers them in it instead of {"detail"}."""

from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel

from services.gateway.errors import ErrorDialect


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorResponse(BaseModel):
    error: OpenAIErrorDetail


class OpenAIHTTPError(HTTPException):
    """An HTTP error with OpenAI's machine-readable `code` (e.g. model_not_found)."""

    def __init__(self, status_code: int, message: str, code: str, param: str | None = None):
        super().__init__(status_code, message)
        self.code, self.param = code, param


# what OpenAI's API calls each failure: (type, code)
_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "not_found"),
    413: ("invalid_request_error", "request_too_large"),
    422: ("invalid_request_error", None),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


def openai_error_body(status: int, message: str, exc: Exception | None = None) -> dict[str, Any]:
    """{"error": {message, type, param, code}}: what OpenAI's clients read from a failure."""
    kind, code = _KINDS.get(status, ("server_error", None))
    param = None
    if isinstance(exc, OpenAIHTTPError):
        code, param = exc.code, exc.param
    detail = OpenAIErrorDetail(message=message, type=kind, param=param, code=code)
    return OpenAIErrorResponse(error=detail).model_dump()


def speaks_openai(path: str) -> bool:
    """The paths whose errors take OpenAI's shape instead of {"detail"}."""
    return path == "/v1/chat/completions" or path == "/v1/models" or path.startswith("/v1/models/")


OPENAI_ERRORS = ErrorDialect(
    speaks=speaks_openai, body=openai_error_body, schema=OpenAIErrorResponse.__name__
)
