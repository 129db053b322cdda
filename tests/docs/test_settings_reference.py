"""Every setting is documented: the settings page is generated from the pydantic-settings
classes, so a setting without `description=` would be a blank cell an operator has to guess."""

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from tests.docs.reference import settings


def test_every_setting_has_a_description() -> None:
    missing = settings.undescribed()
    assert not missing, "settings without a description=: " + ", ".join(missing)


def test_settings_are_found_outside_shared_config_too() -> None:
    modules = {cls.__module__ for cls in settings.settings_classes()}
    assert "shared.config" in modules
    assert any(module.startswith("services.") for module in modules), modules
    assert len(modules) > 2, modules


class _Example(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTISAN_")

    api_key: SecretStr | None = Field(SecretStr("not-for-the-page"), description="a key")
    data_dir: Path = Field(Path.home() / ".artisan", description="where data goes")
    mode: str = Field("", description="a mode")


def test_a_secret_shows_no_default_and_a_home_path_reads_the_same_everywhere() -> None:
    fields = _Example.model_fields
    assert settings.default_text(fields["api_key"]) == "(secret)"
    assert settings.default_text(fields["data_dir"]) == "`~/.artisan`"
    assert settings.default_text(fields["mode"]) == "empty"
    assert settings.env_name(_Example, "api_key", fields["api_key"]) == "ARTISAN_API_KEY"
    assert "not-for-the-page" not in "\n".join(settings.class_section(_Example))
