"""Who hears that this process switched models (settings saved in the web client): whatever was
built from the old ones is forgotten.

It sits below both sides so that neither imports the other: the registry registers its cached
providers here, and shared/models/live.py announces each switch — so the service layer, which
watches the saved models, never imports the providers.
"""

from collections.abc import Callable

_forgetters: list[Callable[[], None]] = []


def when_models_change(forget: Callable[[], None]) -> None:
    """Call `forget` after every switch of models in this process."""
    _forgetters.append(forget)


def models_changed() -> None:
    """This process now uses other models: what was built from the old ones goes."""
    for forget in _forgetters:
        forget()
