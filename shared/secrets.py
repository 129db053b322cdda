"""Secrets redaction: passwords, keys and tokens, private keys, credentials in URLs, SSNs and card
numbers become readable markers.

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

PASSWORD = "password"
API_KEY = "API key"
TOKEN = "token"
SSN = "SSN"
CARD = "card number"
PRIVATE_KEY = "private key"


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


# Word-level secrets: the value follows a password/PIN word and a separator ("is", ":", "=").
_PASSWORD_WORDS = r"(?:pass(?:word|phrase|code|wd)|pwd|pin(?:\s+(?:code|number))?)"
_PASSWORD = re.compile(
    rf"(?P<lead>\b{_PASSWORD_WORDS}\b(?:\s+(?:for|to|on|of)\s+[\w.@-]+)?\s*(?:\bis\b|\bwas\b|=|:|->)\s*"
    r"(?:now\s+|still\s+|just\s+)?)"
    r"(?P<secret>(?![\[(])[\"'`]?[^\s\"'`]{3,}[\"'`]?)",
    re.IGNORECASE,
)
# "the password hunter2x", "PIN 4821": no separator, so only a value that cannot be a word
_PASSWORD_BARE = re.compile(
    rf"\b(?P<word>{_PASSWORD_WORDS})\s+(?P<secret>[\"'`]?[^\s\"'`\[]{{4,}}[\"'`]?)",
    re.IGNORECASE,
)
# "the api key is X", "token: X", "client secret = X"
_KEY_WORDS = (
    r"(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?"
    r"|(?:access|auth|api|bearer|refresh)[\s_-]?token|token|credentials?)"
)
_KEY_ASSIGNMENT = re.compile(
    rf"(?P<lead>(?<![A-Za-z0-9]){_KEY_WORDS}\b\s*(?:\bis\b|\bwas\b|=|:)\s*(?:now\s+)?)"
    r"(?P<secret>[\"'`]?[A-Za-z0-9_\-./+=]{8,}[\"'`]?)",
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
    r"|ak_[A-Za-z0-9_\-]{40,}"  # Artisan's own API keys
    r")"
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
    rf"\b{_KEY_WORDS}\b[^.\n]{{0,40}}?(?P<secret>(?<![\w\[])[A-Za-z0-9_\-]{{20,}}(?![\w\]]))",
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


Rule = tuple[re.Pattern[str], str, Callable[[re.Match[str]], bool]]


def _always(_: re.Match[str]) -> bool:
    return True


def _card_ok(match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    return 13 <= len(digits) <= 19 and _luhn_ok(digits) and len(set(digits)) > 1


def _password_ok(match: re.Match[str]) -> bool:
    value = match.group("secret").strip("\"'`").rstrip(".,;!?")
    stop = {"the", "a", "an", "not", "wrong", "correct", "incorrect", "required", "expired"}
    return value.lower() not in stop and "redacted" not in value.lower()


def _bare_password_ok(match: re.Match[str]) -> bool:
    value = match.group("secret").strip("\"'`").rstrip(".,;!?)")
    has_digit = any(c.isdigit() for c in value)
    if match.group("word").lower().startswith("pin"):
        return value.isdigit() and 4 <= len(value) <= 8
    return has_digit and any(not c.isdigit() for c in value)


def _key_assignment_ok(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if _plain_value(value):
        return False
    return _looks_random(value.strip("\"'`")) or any(c.isdigit() for c in value)


def _near_key_ok(match: re.Match[str]) -> bool:
    return _looks_random(match.group("secret"))


_RULES: tuple[Rule, ...] = (
    (_PRIVATE_KEY, PRIVATE_KEY, _always),
    (_URL_CREDENTIALS, PASSWORD, _always),
    (_JWT, TOKEN, _always),
    (_KNOWN_KEYS, API_KEY, _always),
    (_BEARER, TOKEN, _always),
    (_KEY_ASSIGNMENT, API_KEY, _key_assignment_ok),
    (_NEAR_KEY, API_KEY, _near_key_ok),
    (_PASSWORD, PASSWORD, _password_ok),
    (_PASSWORD_BARE, PASSWORD, _bare_password_ok),
    (_SSN, SSN, _always),
    (_CARD, CARD, _card_ok),
)


def _span(match: re.Match[str]) -> tuple[int, int]:
    """The characters to replace: the secret group if the pattern has one, else the match."""
    if "secret" in match.re.groupindex:
        start, end = match.span("secret")
        value = match.group("secret")
        trimmed = value.rstrip(".,;!?)")
        return start, start + len(trimmed) if trimmed else end
    return match.span()


def _unclaimed(
    found: list[tuple[int, int, str]], candidates: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The candidates (in order, disjoint) that overlap nothing found: one sweep over both."""
    kept = []
    index = 0
    for start, end, kind in candidates:
        while index < len(found) and found[index][1] <= start:
            index += 1
        if index == len(found) or found[index][0] >= end:
            kept.append((start, end, kind))
    return kept


def redact(text: str) -> Redacted:
    """Replace every secret in the text with a marker naming its kind."""
    found: list[tuple[int, int, str]] = []  # sorted and disjoint; an earlier rule wins
    for pattern, kind, accept in _RULES:
        candidates = []
        for match in pattern.finditer(text):
            start, end = _span(match)
            if start < end and accept(match):
                candidates.append((start, end, kind))
        found = list(heapq.merge(found, _unclaimed(found, candidates)))
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
