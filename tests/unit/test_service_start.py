"""A service that calls the chat model builds its client at start, not at its first message:
eight compressors building theirs at once on their first chunks held those chunks back 3 s. The
chunker loads its embedding model at start too, when it embeds small files itself."""

from collections.abc import Iterator

import pytest

from shared.config import model_settings
from shared.models.startup import prepare_chat_model, prepare_embedder
from shared.providers import registry


@pytest.fixture
def built_afresh() -> Iterator[None]:
    model_settings.cache_clear()
    registry.forget_providers()
    yield
    model_settings.cache_clear()
    registry.forget_providers()


@pytest.fixture
def remote_model(built_afresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARTISAN_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ARTISAN_LLM_API_KEY", "test-key")
    model_settings.cache_clear()


async def test_with_a_remote_model_the_client_is_built_at_start(remote_model: None) -> None:
    await prepare_chat_model(None)  # type: ignore[arg-type]  # the pool is not needed
    assert registry.chat_model.cache_info().currsize == 1


async def test_with_local_models_nothing_is_built(built_afresh: None) -> None:
    await prepare_chat_model(None)  # type: ignore[arg-type]
    assert registry.chat_model.cache_info().currsize == 0


async def test_with_local_models_the_chunker_loads_its_embedder_at_start(
    built_afresh: None,
) -> None:
    # a chunker that loaded MiniLM at its first file made that file wait 1.3 s; now 0.09 s
    await prepare_embedder(None)  # type: ignore[arg-type]
    assert registry.embedder.cache_info().currsize == 1


async def test_with_a_remote_model_the_chunker_embeds_nothing_and_loads_nothing(
    remote_model: None,
) -> None:
    await prepare_embedder(None)  # type: ignore[arg-type]
    assert registry.embedder.cache_info().currsize == 0
