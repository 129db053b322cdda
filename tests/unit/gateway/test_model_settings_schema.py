"""What PUT /v1/settings/models accepts: http(s) addresses without credentials, write-only keys."""

import pytest
from pydantic import ValidationError

from services.gateway.models.schemas import ModelSettingsUpdate


@pytest.mark.parametrize(
    ("given", "stored"),
    [("", ""), (" https://api.openai.com/v1/ ", "https://api.openai.com/v1")],
)
def test_an_address_is_trimmed(given: str, stored: str) -> None:
    assert ModelSettingsUpdate(llm_base_url=given).llm_base_url == stored


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("ftp://example.com", "http:// or https://"),
        ("api.openai.com/v1", "http:// or https://"),
        ("https://user:sk-secret@example.com/v1", "put the key in the API key field"),
        ("https://exa mple.com", "http:// or https://"),
    ],
)
def test_other_addresses_are_refused_with_what_to_do(address: str, reason: str) -> None:
    with pytest.raises(ValidationError, match=reason):
        ModelSettingsUpdate(llm_base_url=address)


def test_a_key_is_write_only_in_the_schema() -> None:
    schema = ModelSettingsUpdate.model_json_schema()["properties"]["llm_api_key"]["anyOf"][0]
    assert schema["writeOnly"] and schema["format"] == "password"
    assert "sk-x" not in repr(ModelSettingsUpdate(llm_api_key="sk-x"))


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        ModelSettingsUpdate(llm_key="sk-x")
