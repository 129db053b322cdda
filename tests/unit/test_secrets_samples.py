"""Redaction on generated samples: for each kind, many random secrets in random prose, none of
whose characters survive (no six of them in a row); and generated ordinary text — prose and
numbers, IBAN-shaped strings whose checksum fails, sentences that speak of a password without
giving one — left exactly as it was."""

import re

from hypothesis import given
from hypothesis import strategies as st

from shared.secrets import redact
from tests.unit.secret_samples import (
    API_KEY_GIVEN_IN,
    CLAUSE_ENDS,
    GIVEN_IN,
    NOT_GIVEN,
    aws_key_pairs,
    basic_credentials,
    bearer_tokens,
    hugging_face_tokens,
    ibans,
    invalid_ibans,
    npm_tokens,
    passphrases,
    prose,
    slack_webhooks,
)

MARKER = re.compile(r"\[redacted [^\]]*\]")


def assert_gone(secret: str, before: str, after: str) -> None:
    """No six characters of the secret in a row survive, unless the prose around had them."""
    text = f"{before}{secret}{after}"
    redacted = redact(text).text
    unmarked = MARKER.sub("", redacted)  # "[redacted token]" holds "redact", "token"…
    survivors = {
        secret[i : i + 6]
        for i in range(len(secret) - 5)
        if secret[i : i + 6] in unmarked and secret[i : i + 6] not in before + after
    }
    assert not survivors, (text, redacted)
    assert redact(redacted).text == redacted  # the markers are not redacted again


def assert_kept(text: str) -> None:
    result = redact(text)
    assert (result.text, result.count) == (text, 0)


@given(iban=ibans(), before=prose(), after=prose(), label=st.sampled_from(["", "IBAN ", "IBAN: "]))
def test_a_valid_iban_is_redacted(iban: str, before: str, after: str, label: str) -> None:
    assert_gone(iban, f"{before} {label}", f". {after}")
    assert_gone(iban.replace(" ", ""), f"{before} {label}", f", {after}")


@given(iban=invalid_ibans(), before=prose(), after=prose())
def test_an_iban_shaped_string_whose_checksum_fails_is_kept(
    iban: str, before: str, after: str
) -> None:
    assert_kept(f"{before} Account {iban}. {after}")


@given(
    token=st.one_of(npm_tokens(), hugging_face_tokens(), slack_webhooks()),
    before=prose(),
    after=prose(),
    gap=st.sampled_from([" ", "\n", ": ", " (", " `"]),
)
def test_a_token_or_webhook_is_redacted(token: str, before: str, after: str, gap: str) -> None:
    assert_gone(token, before + gap, f" {after}")


@given(credentials=basic_credentials(), before=prose(), quote=st.sampled_from(["", '"']))
def test_basic_credentials_in_an_authorization_header_are_redacted(
    credentials: str, before: str, quote: str
) -> None:
    assert_gone(credentials, f"{before}\n{quote}Authorization{quote}: {quote}Basic ", f"{quote}\n")


@given(token=bearer_tokens(), scheme=st.sampled_from(["Bearer", "Token", "bearer"]))
def test_a_token_in_an_authorization_header_is_redacted(token: str, scheme: str) -> None:
    assert_gone(token, f"curl -H 'Authorization: {scheme} ", "' https://api.example.com")


@given(
    pair=aws_key_pairs(),
    between=st.sampled_from(["\n", " ", "\n\n", " and the other one is\n", ", with\n"]),
    before=prose(),
    secret_first=st.booleans(),
)
def test_an_unlabelled_aws_secret_near_its_key_id_is_redacted(
    pair: tuple[str, str], between: str, before: str, secret_first: bool
) -> None:
    key_id, secret = pair
    if secret_first:
        assert_gone(secret, f"{before}\n", f"{between}{key_id}\n")
    else:
        assert_gone(secret, f"{before}\n{key_id}{between}", "\n")
    assert key_id not in redact(f"{before}\n{key_id}{between}{secret}").text


@given(
    given_in=st.sampled_from(GIVEN_IN),
    phrase=passphrases(),
    before=prose(),
    end=st.sampled_from(CLAUSE_ENDS),
    after=prose(),
)
def test_a_passphrase_after_a_label_in_any_language_goes_whole(
    given_in: tuple[str, str], phrase: str, before: str, end: str, after: str
) -> None:
    _, template = given_in
    text = f"{before} {template.format(phrase)}{end}{after}"
    redacted = redact(text).text
    assert_gone(phrase, f"{before} {template.format('')}", end + after)
    assert redacted.endswith(end + after)  # the clause ends the password; what follows is kept


@given(
    given_in=st.sampled_from(GIVEN_IN),
    password=st.text("abcdefghXYZ0123456789!#$%&*-_", min_size=6, max_size=20),
    before=prose(),
    after=prose(),
)
def test_a_one_word_password_after_a_label_in_any_language_is_redacted(
    given_in: tuple[str, str], password: str, before: str, after: str
) -> None:
    _, template = given_in
    assert_gone(password, f"{before} {template.format('')}", f". {after}")


@given(
    template=st.sampled_from(API_KEY_GIVEN_IN),
    key=st.text("abcdef0123456789", min_size=16, max_size=40).filter(
        lambda k: any(c.isdigit() for c in k)
    ),
    before=prose(),
)
def test_an_api_key_after_a_label_in_another_language_is_redacted(
    template: str, key: str, before: str
) -> None:
    assert_gone(key, f"{before} {template.format('')}", ".")


@given(sentences=st.lists(st.one_of(prose(), st.sampled_from(NOT_GIVEN)), min_size=1, max_size=6))
def test_ordinary_prose_numbers_and_sentences_about_passwords_are_kept(
    sentences: list[str],
) -> None:
    assert_kept(" ".join(sentences))
    assert_kept("\n".join(sentences))
