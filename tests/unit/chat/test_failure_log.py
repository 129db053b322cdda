"""A failed answer's log line (issue 29, finding 7): the whole traceback for the admin, the
provider's address and reply included, but with the key a provider's reply may echo redacted."""

from services.chat.failures import in_words, logged
from shared.errors import ModelUnavailableError

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
REPLY = f'Error code: 401 - {{"error": {{"message": "Incorrect API key provided: {KEY}"}}}}'


def failure() -> ModelUnavailableError:
    try:
        try:
            raise RuntimeError(REPLY)
        except RuntimeError as reply:
            raise ModelUnavailableError("the model at http://10.20.30.40:8080/v1") from reply
    except ModelUnavailableError as exc:
        return exc


def test_the_log_keeps_the_address_and_the_reply_but_not_the_key() -> None:
    line = logged(failure())
    assert "http://10.20.30.40:8080/v1" in line and "Incorrect API key provided" in line
    assert "Traceback" in line and "RuntimeError" in line  # the cause too
    assert KEY not in line and "[redacted API key]" in line


def test_the_asker_hears_neither() -> None:
    told = in_words(failure(), "writer-7b")
    assert "10.20.30.40" not in told and KEY not in told and "Incorrect" not in told
