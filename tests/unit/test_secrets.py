"""Secrets redaction: what must be hidden, and ordinary prose that must be left alone."""

import pytest

from shared.secrets import contains_secret, marker, redact

POSITIVES = [
    ("password: hunter2", "hunter2", "password"),
    ("My password is hunter2, please remember it", "hunter2", "password"),
    ("pwd=S3cr3t!", "S3cr3t!", "password"),
    ("The passphrase is correct-horse-battery-staple.", "correct-horse-battery-staple", "password"),
    ("my PIN is 4821", "4821", "password"),
    ("Password for admin@acme.com: Tr0ub4dor&3", "Tr0ub4dor&3", "password"),
    ("Use passcode = 'x9x9x9'", "x9x9x9", "password"),
    ("never share the password hunter2xyz in chat", "hunter2xyz", "password"),
    ("the wifi PIN 48213 opens it", "48213", "password"),
    (
        "key sk-abcdefghijklmnopqrstuvwxyz123456 works",
        "sk-abcdefghijklmnopqrstuvwxyz123456",
        "API key",
    ),
    ("sk-proj-AbCdEf0123456789GhIjKlMnOp", "sk-proj-AbCdEf0123456789GhIjKlMnOp", "API key"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "API key"),
    ("ghp_1234567890abcdefghijABCDEFGHIJ", "ghp_1234567890abcdefghijABCDEFGHIJ", "API key"),
    ("gho_1234567890abcdefghijABCDEFGHIJ", "gho_1234567890abcdefghijABCDEFGHIJ", "API key"),
    (
        "github_pat_11ABCDEFG0123456789_abcdefXYZ",
        "github_pat_11ABCDEFG0123456789_abcdefXYZ",
        "API key",
    ),
    ("slack xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF", "API key"),
    ("xoxp-1234-5678-abcdefghij", "xoxp-1234-5678-abcdefghij", "API key"),
    (
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "API key",
    ),
    ("Authorization: Bearer abc123DEF456ghi789", "abc123DEF456ghi789", "token"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9",
        "token",
    ),
    ("the api key is abc123def456", "abc123def456", "API key"),
    ("API_KEY=9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210", "API key"),
    ("client secret: Zx81Kq0Pw3Lm7Nb2", "Zx81Kq0Pw3Lm7Nb2", "API key"),
    ("our token for staging Zx81Kq0Pw3Lm7Nb2Vc5Tr9Yu", "Zx81Kq0Pw3Lm7Nb2Vc5Tr9Yu", "API key"),
    ("my SSN is 123-45-6789.", "123-45-6789", "SSN"),
    ("card 4111 1111 1111 1111 exp 12/27", "4111 1111 1111 1111", "card number"),
    ("card 4111-1111-1111-1111", "4111-1111-1111-1111", "card number"),
    ("amex 378282246310005 ok", "378282246310005", "card number"),
    ("visa 4012888888881881", "4012888888881881", "card number"),
    (
        "DATABASE_URL=postgresql://admin:s3cretpass@db.example.com:5432/prod",
        "s3cretpass",
        "password",
    ),
    ("clone https://maya:ghostWriter77@git.example.com/repo", "ghostWriter77", "password"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "API key",
    ),
    (
        "my Artisan key ak_fUT6OWkAQMHBHWBpVP3vtnxLZZHNvh-WrMGArRgV1WI works",
        "ak_fUT6OWkAQMHBHWBpVP3vtnxLZZHNvh-WrMGArRgV1WI",
        "API key",
    ),
    (
        "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1c7+Zx/9=\n"
        "-----END RSA PRIVATE KEY-----\nthanks",
        "MIIEowIBAAKCAQEA1c7+Zx/9=",
        "private key",
    ),
    ("my password is sunshine", "sunshine", "password"),
    # issue 29, finding 8
    ("pay DE89 3704 0044 0532 0130 00 today", "3704 0044 0532", "IBAN"),
    ("IBAN FR1420041010050500013M02606", "20041010050500013M02606", "IBAN"),
    ("to CH93 0076 2011 6238 5295 7.", "0076 2011 6238 5295 7", "IBAN"),
    ("NO93 8601 1117 947", "8601 1117 947", "IBAN"),
    ("MT84 MALT 0110 0001 2345 MTLC AST0 01S", "MTLC AST0 01S", "IBAN"),
    (
        "hook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "webhook URL",
    ),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", "API key"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnopqrstuvwxyzABCDEFGH", "API key"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "password"),
    ('{"Authorization": "Bearer abc123"}', "abc123", "token"),
    (
        "AKIAIOSFODNN7EXAMPLE\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "API key",
    ),
    ("my password is correct horse battery staple", "horse battery staple", "password"),
    ('{"password": "hunter two", "user": "bob"}', "hunter two", "password"),
    ("DB_PASSWORD=hunter2xyz", "hunter2xyz", "password"),
    ("Passwort: geheim123", "geheim123", "password"),
    ("Datenbankkennwort ist Sonne42", "Sonne42", "password"),
    ("Mon mot de passe est soleil levant.", "soleil levant", "password"),
    ("Mi contraseña es gato azul", "gato azul", "password"),
    ("La mia password è cane nero", "cane nero", "password"),
    ("Mijn wachtwoord is fiets rood", "fiets rood", "password"),
    ("Minha senha é casa branca", "casa branca", "password"),
    ("Moje hasło to zielony las", "zielony las", "password"),
    ("API-Schlüssel: a1b2c3d4e5f6g7h8", "a1b2c3d4e5f6g7h8", "API key"),
    ("clé API : a1b2c3d4e5f6g7h8", "a1b2c3d4e5f6g7h8", "API key"),
]

NEGATIVES = [
    "we raised $2,500,000 in 2024",
    "The meeting is on 2024-03-15 at 10:30.",
    "the token budget is 4000",
    "Revenue grew 37% to 1,234,567 units across 12 regions.",
    "Order number 1234567890123 was shipped.",  # 13 digits, fails Luhn
    "Please reset your password if you forget it.",
    "The password policy requires 12 characters.",
    "Password is required for every account.",
    "we discussed API keys and secrets management in general",
    "Tokens are counted per request; the limit is 128000.",
    "Call 555-123-4567 tomorrow.",
    "ISBN 978-3-16-148410-0 is a book.",
    "Our secret sauce is customer focus.",
    "version 1.2.3 released on 12/05/2023",
    "The quarter ended with 2500000 in the bank",
    "0000 0000 0000 0000",
    "Remember the bearer of bad news.",
    "the token is valid for one hour",
    "Password reset emails go out at 9am.",
    "The password policy changed in 2024.",
    "Enter your PIN code at the terminal.",
    "See https://example.com/docs:intro@v2 for details.",
    "The public key is -----BEGIN PUBLIC KEY----- below.",
    "tasks_and_keys: tracked in the wiki",
    # issue 29, finding 8
    "Your password is too short.",
    "The password is correct.",
    "Das Passwort ist falsch.",
    "Le mot de passe est incorrect.",
    "Reference DE00 3704 0044 0532 0130 00",  # the checksum fails
    "DE89 3704 0044 0532 0130 01",  # one digit off
    "ZZ12 ABCD EFGH IJKL",  # no such country
    "run npm_install and hf_hub_download",
    "The Authorization header is required.",
    "1Password is my password manager.",
]


@pytest.mark.parametrize(("text", "secret", "kind"), POSITIVES)
def test_secret_is_replaced_by_its_marker(text: str, secret: str, kind: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert marker(kind) in result.text
    assert kind in result.kinds
    assert result.count >= 1
    assert contains_secret(text)


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_prose_is_left_alone(text: str) -> None:
    result = redact(text)
    assert result.text == text
    assert result.count == 0
    assert not contains_secret(text)


def test_several_secrets_in_one_text_are_counted_and_the_rest_kept() -> None:
    text = "Login: password: hunter2. SSN 123-45-6789, card 4111 1111 1111 1111. Thanks!"
    result = redact(text)
    assert result.count == 3
    assert set(result.kinds) == {"password", "SSN", "card number"}
    assert result.text.startswith("Login: password: [redacted password].")
    assert result.text.endswith("Thanks!")


def test_a_key_inside_a_password_clause_keeps_its_own_marker() -> None:
    result = redact("my password is hunter2 and my key sk-abcdefghijklmnopqrstuvwxyz123456 ok")
    assert result.text == (
        "my password is [redacted password] [redacted API key] [redacted password]"
    )


def test_a_hex_digest_near_an_aws_key_id_is_not_its_secret() -> None:
    text = "AKIAIOSFODNN7EXAMPLE at commit 9fceb02d0ae598e95dc970b74767f19372d61af8"
    assert (
        redact(text).text == "[redacted API key] at commit 9fceb02d0ae598e95dc970b74767f19372d61af8"
    )


def test_what_follows_a_password_clause_is_kept() -> None:
    text = "Wifi password: orange tiger velvet, the router is in the hall.\nSee you."
    assert redact(text).text == (
        "Wifi password: [redacted password], the router is in the hall.\nSee you."
    )


def test_redacting_twice_changes_nothing_more() -> None:
    once = redact("my password is hunter2 and key sk-abcdefghijklmnopqrstuvwxyz123456")
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.count == 0
