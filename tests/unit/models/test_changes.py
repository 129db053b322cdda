"""A switch of saved models reaches the providers already built, though the code that switches
(shared/models/live.py) does not import the registry: the registry hears of it through
shared/models/changes.py."""

from collections.abc import Iterator

import pytest

from shared.config import model_settings
from shared.models import live
from shared.providers import registry


@pytest.fixture
def environment_models() -> Iterator[None]:
    model_settings.cache_clear()
    registry.forget_providers()
    yield
    live.apply(None)


def test_applying_saved_models_forgets_every_provider_built(environment_models: None) -> None:
    registry.classifier()
    registry.embedder()
    assert registry.classifier.cache_info().currsize == 1
    live.apply(None)
    assert registry.classifier.cache_info().currsize == 0
    assert registry.embedder.cache_info().currsize == 0
