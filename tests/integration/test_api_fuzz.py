"""Schemathesis against the running gateway's own OpenAPI schema: no request it can make gets a
5xx, and every answer is one the schema documents — its status, content type, headers and body.

Each operation gets a bounded number of generated requests (and schemathesis's boundary cases),
all from one new user, so deleting or importing only touches that user's data. Two checks are
left out on purpose: `positive_data_acceptance` (some rules live in the server, not the schema:
a persona must be one of GET /v1/personas, a cursor one the API handed out) and
`unsupported_method` (Starlette's 405 names the methods of one route at a path, not all).
"""

import asyncio
import uuid

import asyncpg
import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from services.gateway.main import create_app
from shared.config import InfraSettings
from shared.db import users
from shared.launcher.stack import Stack

EXAMPLES_PER_OPERATION = 15
REQUEST_TIMEOUT_SECONDS = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


async def _new_user_key(database_url: str) -> str:
    conn = await asyncpg.connect(database_url)
    try:
        _, key = await users.create_user(conn, name=f"fuzz-{uuid.uuid4().hex[:8]}")
    finally:
        await conn.close()
    return key


@pytest.fixture(scope="module")
def fuzz_headers(system: Stack) -> dict[str, str]:
    return {"Authorization": f"Bearer {asyncio.run(_new_user_key(system.database_url))}"}


def gateway_schema() -> schemathesis.BaseSchema:
    """The gateway's schema, built from its code when the tests are collected (the system starts
    later); the test checks the running gateway serves this same one."""
    infra = InfraSettings(nats_url="nats://unused", database_url="postgresql://unused")
    return schemathesis.openapi.from_dict(create_app(infra).openapi())


schema = gateway_schema()


@pytest.fixture(scope="module")
def served_schema(system: Stack) -> None:
    response = httpx.get(f"{system.gateway_url}/openapi.json", timeout=10)
    assert response.json() == schema.raw_schema, "the running gateway serves another schema"


# GET /v1/events stays open for as long as the client reads: a request to it never ends
@schema.exclude(path="/v1/events").parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_gateway_answers_every_request_as_its_schema_says(
    case: schemathesis.Case, system: Stack, served_schema: None, fuzz_headers: dict[str, str]
) -> None:
    case.call_and_validate(
        base_url=system.gateway_url,
        headers=fuzz_headers,
        checks=CHECKS,
        timeout=REQUEST_TIMEOUT_SECONDS,
    )
