"""Redaction and instruction detection run in linear time on hostile input: imported turns and
chat messages reach them, and one user's crafted text must not hold a worker for minutes. Each
redaction input took seconds at 200 KB (hours at 10 MB) while a pattern could start anywhere in a
run of its characters; the bound is generous, quadratic cases miss it by orders of magnitude.

Every pattern's hostile input is also timed at two sizes, eight times apart: a linear pattern
takes about eight times as long on the larger, a quadratic one sixty-four times, whatever the
machine's speed; the growth allowed is twenty (each time the best of three)."""

import re
import time
from collections.abc import Callable

import pytest

from services.gateway.conversations.turn_schemas import MAX_IMPORT_FIELD_CHARS
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
# the patterns added for issue 29 (IBANs, webhooks, npm/hf tokens, Authorization headers, AWS
# secrets near their key ids, passwords given in eight languages, compound labels)
HOSTILE_NEW = {
    "IBAN starts": "DE89 ",
    "IBAN groups never ending": "DE89 3704 ",
    "IBAN run without spaces": "DE89",
    "IBAN of an unknown country": "AB12 CDEF ",
    "card digits after an IBAN shape": "DE12 4111 1111 1111 1111 ",
    "webhook prefixes": "https://hooks.slack.com/services/",
    "webhook paths too short": "hooks.slack.com/services/a ",
    "npm prefixes": "npm_",
    "hf prefixes": "hf_",
    "npm tokens one short": "npm_" + "a" * 35 + " ",
    "Basic without credentials": "Authorization: Basic ",
    "Authorization without scheme": "Authorization: ",
    "Authorization in JSON, unclosed": '"Authorization": "',
    "AWS key ids": "AKIAIOSFODNN7EXAMPLE ",
    "AWS key ids with secrets one short": "AKIAIOSFODNN7EXAMPLE " + "aB1/" * 9 + "aB1 ",
    "AWS-like secrets without key ids": "aB1/" * 10 + " ",
    "password verbs": "password is ",
    "German labels": "Passwort ist ",
    "French labels": "mot de passe est ",
    "Polish labels": "hasło to ",
    "quoted passwords never closed": 'password: "',
    "clauses": "password: a ",
    "dots inside a clause": "a.",
    "password for whom": "password for a b ",
    "snake_case words": "a_",
    "compound labels without a value": "xpassword",
    "API key labels in German": "API-Schlüssel ",
    "API key labels in French": "clé API ",
    "hyphenated words": "a-",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_megabyte_of_hostile_text_is_redacted_in_linear_time(unit: str) -> None:
    text = unit * (SIZE // len(unit))
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 5.0


def timed(run: Callable[[str], object], text: str) -> float:
    started = time.perf_counter()
    run(text)
    return time.perf_counter() - started


def growth(run: Callable[[str], object], unit: str, small: int, large: int) -> float:
    """How many times longer the run takes on `large` characters of the unit than on `small`."""

    def best(size: int) -> float:
        text = unit * (size // len(unit))
        return min(timed(run, text) for _ in range(3))

    return best(large) / best(small)


@pytest.mark.parametrize(
    "unit", [*HOSTILE.values(), *HOSTILE_NEW.values()], ids=[*HOSTILE, *HOSTILE_NEW]
)
def test_redaction_time_grows_linearly_with_hostile_text(unit: str) -> None:
    assert growth(redact, unit, 20_000, 160_000) < 20


def test_the_growth_measure_tells_a_quadratic_pattern() -> None:
    """The measure itself: a pattern that scans to the end from every start grows ~64 times."""
    quadratic = re.compile(r"a*b")
    assert growth(quadratic.search, "a", 1_000, 8_000) > 30
    assert growth(re.compile(r"(?<!a)a*+b").search, "a", 100_000, 800_000) < 20


@pytest.mark.parametrize("unit", ["keep ", "don't ", "i want you to ", "hey gunnar, ", "a"])
def test_instruction_detection_on_the_longest_imported_message_is_linear(unit: str) -> None:
    text = unit * (MAX_IMPORT_FIELD_CHARS // len(unit))
    started = time.perf_counter()
    detect_instruction(text, "gunnar")
    assert time.perf_counter() - started < 5.0
