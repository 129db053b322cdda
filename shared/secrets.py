"""Secrets redaction: passwords and passphrases (labelled in eight languages), keys and tokens,
private keys, credentials in URLs and Authorization headers, webhook URLs, IBANs, SSNs and card
numbers become readable markers (docs/redaction.md lists them, with samples).

Every pattern runs in linear time on any input: a match may only start where a run of its
characters starts (a lookbehind), runs are possessive, and nothing scans to the end of the text
looking for a closing part (the hostile inputs are in tests/unit/test_secrets_linear.py)."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from shared.redaction.iban import SHAPE, iban_end, is_iban_shaped
from shared.redaction.passwords import (
    PASSWORD_BARE,
    PASSWORD_GIVEN,
    bare_password_ok,
    password_ok,
)

PASSWORD = "password"
API_KEY = "API key"
TOKEN = "token"
SSN = "SSN"
CARD = "card number"
PRIVATE_KEY = "private key"
IBAN = "IBAN"
WEBHOOK = "webhook URL"


@dataclass(frozen=True)
class Redacted:
    """Text with its secrets replaced, how many were replaced and of which kinds."""

    text: str
    count: int
    kinds: tuple[str, ...]


def marker(kind: str) -> str:
    """The readable marker that replaces a secret of this kind."""
    return f"[redacted {kind}]"


# marker(), or a model's rewording; [^][] keeps "[redacted [redacted …" without "]" linear
_MARKER = re.compile(r"\[redacted\b[^\]\[]*\]", re.IGNORECASE)


def holds_marker(text: str) -> bool:
    """True when the text carries a marker: a secret was there, redacted before it was read."""
    return bool(_MARKER.search(text))


# "the api key is X", "token: X", "client secret = X", "API-Schlüssel: X", "clé API : X"; a
# pattern opening with (?=[…]) of its first letters moves on at once where none starts (3x faster)
_KEY_WORDS = (
    r"(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?"
    r"|(?:access|auth|api|bearer|refresh)[\s_-]?token|token|credentials?"
    r"|api[\s_-]?(?:schlüssel|sleutel)|(?:clé|chiave|clave|chave|klucz)\s+(?:d['’]|de\s+)?api)"
)
_KEY_ASSIGNMENT = re.compile(
    rf"(?P<lead>(?=[abcrstk])(?<![A-Za-z0-9]){_KEY_WORDS}\b\s*(?:\b(?:is|was|ist|lautet|est|es|è|é|jest)\b|=|:)"
    r"\s*(?:now\s+)?)(?P<secret>[\"'`]?[A-Za-z0-9_\-./+=]{8,}[\"'`]?)",
    re.IGNORECASE,
)
_KNOWN_KEYS = re.compile(
    r"\b(?:"
    r"sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"
    r"|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|ASIA[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}"
    r"|pa-[A-Za-z0-9_\-]{30,}"
    r"|npm_[A-Za-z0-9]{36,}"
    r"|hf_[A-Za-z0-9]{34,}"
    r"|ak_[A-Za-z0-9_\-]{40,}"  # Artisan's own API keys
    r")"
)
# an AWS secret key near its key id, unlabelled: 40 characters of base64 holding both cases and a
# digit or symbol (a 40-character hex digest has no capitals), within 200 characters either side
_AWS_KEY_ID = r"(?=A)\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
_AWS_SECRET = (
    r"(?<![A-Za-z0-9/+=])(?P<secret>(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_AWS_SECRET_AFTER_ID = re.compile(rf"{_AWS_KEY_ID}[\s\S]{{0,200}}?{_AWS_SECRET}")
_AWS_SECRET_BEFORE_ID = re.compile(rf"{_AWS_SECRET}(?=[\s\S]{{0,200}}?{_AWS_KEY_ID})")
_WEBHOOK = re.compile(
    r"(?=[hd])\b(?:https?://)?(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|(?:discord(?:app)?\.com)/api/webhooks/)[A-Za-z0-9_\-/]{16,}+",
    re.IGNORECASE,
)
# "Authorization: Basic <base64 of user:password>", "Authorization: Token <t>", as a header or JSON
_AUTHORIZATION = r"(?=[ap])\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
_BASIC_AUTH = re.compile(
    rf"{_AUTHORIZATION}basic\s+(?P<secret>[A-Za-z0-9+/=]{{4,}}+)", re.IGNORECASE
)
_AUTH_TOKEN = re.compile(
    rf"{_AUTHORIZATION}(?:bearer|token|apikey)\s+(?P<secret>[A-Za-z0-9_\-.~+/=]{{4,}}+)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(?P<lead>Bearer\s+)(?P<secret>[A-Za-z0-9_\-.~+/=]{12,})", re.IGNORECASE)
# a JWT starts a run of its characters: without the lookbehind "eyJ-" × n is tried n times
_JWT = re.compile(
    r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+"
)
# the whole block; an unterminated one up to where its base64 body ends
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[\sA-Za-z0-9+/=:,.]|-(?!----))*+"
    r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?"
)
# scheme://user:password@host — the password only
_URL_CREDENTIALS = re.compile(
    r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}+://[^\s:/@]{1,256}+:"
    r"(?P<secret>[^\s@/]{1,256}+)@"
)
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
# A long, mixed token near a key/token/secret word, without an explicit "is"/":".
_NEAR_KEY = re.compile(
    rf"(?=[abcrstk])\b{_KEY_WORDS}\b[^.\n]{{0,40}}?(?P<secret>(?<![\w\[])[A-Za-z0-9_\-]{{20,}}(?![\w\]]))",
    re.IGNORECASE,
)


def _luhn_ok(digits: str) -> bool:
    """True when the digits pass the Luhn checksum used by payment cards."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """A value that reads like a generated key rather than a word or a number."""
    classes = sum(any(test(c) for c in value) for test in (str.islower, str.isupper, str.isdigit))
    return len(value) >= 16 and classes >= 2 and _entropy(value) >= 3.5


def _plain_value(value: str) -> bool:
    """Values after a key word that are prose, not a secret ("the token budget is 4000")."""
    bare = value.strip("\"'`")
    if bare.isdigit() and len(bare) < 12:
        return True
    return bare.isalpha() and bare.islower() and len(bare) < 16 and not _looks_random(bare)


Span = tuple[int, int]
Rule = tuple[re.Pattern[str], str, Callable[[re.Match[str]], Span | None]]


def _span(match: re.Match[str]) -> Span:
    """The characters to replace: the secret group if the pattern has one, else the match."""
    if "secret" in match.re.groupindex:
        start, end = match.span("secret")
        value = match.group("secret")
        trimmed = value.rstrip(".,;!?)")
        return start, start + len(trimmed) if trimmed else end
    return match.span()


def _when(accept: Callable[[re.Match[str]], bool]) -> Callable[[re.Match[str]], Span | None]:
    """The match's span when accept passes it."""
    return lambda match: _span(match) if accept(match) else None


def _always(_: re.Match[str]) -> bool:
    return True


def _card_ok(match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    return (
        13 <= len(digits) <= 19
        and _luhn_ok(digits)
        and len(set(digits)) > 1
        and not is_iban_shaped(match.string, match.start())  # an account number, checked apart
    )


def _iban(match: re.Match[str]) -> Span | None:
    end = iban_end(match.string, match.start(), match.end())
    return None if end is None else (match.start(), end)


def _key_assignment_ok(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if _plain_value(value):
        return False
    return _looks_random(value.strip("\"'`")) or any(c.isdigit() for c in value)


def _near_key_ok(match: re.Match[str]) -> bool:
    return _looks_random(match.group("secret"))


_RULES: tuple[Rule, ...] = (
    (_PRIVATE_KEY, PRIVATE_KEY, _when(_always)),
    (_URL_CREDENTIALS, PASSWORD, _when(_always)),
    (_WEBHOOK, WEBHOOK, _when(_always)),
    (_JWT, TOKEN, _when(_always)),
    (_KNOWN_KEYS, API_KEY, _when(_always)),
    (_AWS_SECRET_AFTER_ID, API_KEY, _when(_always)),
    (_AWS_SECRET_BEFORE_ID, API_KEY, _when(_always)),
    (SHAPE, IBAN, _iban),
    (_BASIC_AUTH, PASSWORD, _when(_always)),
    (_AUTH_TOKEN, TOKEN, _when(_always)),
    (_BEARER, TOKEN, _when(_always)),
    (_KEY_ASSIGNMENT, API_KEY, _when(_key_assignment_ok)),
    (_NEAR_KEY, API_KEY, _when(_near_key_ok)),
    (PASSWORD_GIVEN, PASSWORD, _when(password_ok)),
    (PASSWORD_BARE, PASSWORD, _when(bare_password_ok)),
    (_SSN, SSN, _when(_always)),
    (_CARD, CARD, _when(_card_ok)),
)


def _unclaimed(
    text: str, found: list[tuple[int, int, str]], candidates: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The parts of the candidates (in order, disjoint) that nothing found covers, in one sweep
    over both: a passphrase keeps its marker on either side of a key found inside it."""
    kept: list[tuple[int, int, str]] = []
    index = 0
    for start, end, kind in candidates:
        while index < len(found) and found[index][1] <= start:
            index += 1
        cursor, probe = start, index
        while probe < len(found) and found[probe][0] < end:
            kept.extend(_part(text, cursor, found[probe][0], kind))
            cursor = max(cursor, found[probe][1])
            probe += 1
        kept.extend(_part(text, cursor, end, kind))
    return kept


def _part(text: str, start: int, end: int, kind: str) -> list[tuple[int, int, str]]:
    """text[start:end] without its edges' spaces, if a letter or digit is left in it."""
    piece = text[start:end]
    stripped = piece.strip()
    if not any(char.isalnum() for char in stripped):
        return []
    first = start + len(piece) - len(piece.lstrip())
    return [(first, first + len(stripped), kind)]


def redact(text: str) -> Redacted:
    """Replace every secret in the text with a marker naming its kind."""
    found: list[tuple[int, int, str]] = []  # sorted and disjoint; an earlier rule wins
    for pattern, kind, spot in _RULES:
        candidates = []
        for match in pattern.finditer(text):
            span = spot(match)
            if span is not None and span[0] < span[1]:
                candidates.append((*span, kind))
        found = list(heapq.merge(found, _unclaimed(text, found, candidates)))
    if not found:
        return Redacted(text=text, count=0, kinds=())
    parts: list[str] = []
    cursor = 0
    for start, end, kind in found:
        parts.append(text[cursor:start])
        parts.append(marker(kind))
        cursor = end
    parts.append(text[cursor:])
    kinds = tuple(dict.fromkeys(kind for _, _, kind in found))
    return Redacted(text="".join(parts), count=len(found), kinds=kinds)


def contains_secret(text: str) -> bool:
    """True when the text holds anything redact() would replace."""
    return redact(text).count > 0
