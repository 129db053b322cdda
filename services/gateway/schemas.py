"""The error body every gateway route documents (errors.py sends it; the OpenAI-compatible paths
answer in OpenAI's shape instead)."""

from pydantic import BaseModel, Field


class ErrorResponse(BaseModel):
    detail: str = Field(description="what went wrong and what to do about it")
