"""Redaction and instruction detection run in linear time on hostile input: imported turns and
chat messages reach them, and one user's crafted text must not hold a worker for minutes. Each
redaction input took seconds at 200 KB (hours at 10 MB) while a pattern could start anywhere in a
run of its characters; the bound is generous, quadratic cases miss it by orders of magnitude."""

import time

import pytest

from services.gateway.turn_schemas import MAX_IMPORT_FIELD_CHARS
from shared.providers.local.instructions import detect_instruction
from shared.secrets import redact

SIZE = 1_000_000
HOSTILE = {
    "JWT starts without dots": "eyJ-",
    "markers never closed": "[redacted ",
    "key prefixes": "sk-",
    "Artisan key prefixes": "ak_",
    "URL schemes without credentials": "a://b:",
    "private keys never ended": "-----BEGIN PRIVATE KEY-----\n",
    "key words without values": "token ",
    "snake_case key words": "aws_secret_access_key_",
    "password words without values": "password for ",
    "card-like digits": "4111 1111 1111 111",
    "Bearer words": "Bearer ",
    "one long word": "a",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_megabyte_of_hostile_text_is_redacted_in_linear_time(unit: str) -> None:
    text = unit * (SIZE // len(unit))
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize("unit", ["keep ", "don't ", "i want you to ", "hey gunnar, ", "a"])
def test_instruction_detection_on_the_longest_imported_message_is_linear(unit: str) -> None:
    text = unit * (MAX_IMPORT_FIELD_CHARS // len(unit))
    started = time.perf_counter()
    detect_instruction(text, "gunnar")
    assert time.perf_counter() - started < 5.0
