"""Personas load from prompts/personas/, each distinct, and malformed files are refused."""

import pytest

from shared.personas import get_persona, load_personas, parse_persona, persona_names
from shared.prompts import PromptError

DEFAULTS = {"gunnar", "vlad", "kirby", "stefan", "ananya", "samara"}


def test_the_six_default_personas_load_with_distinct_roles_and_voices() -> None:
    personas = load_personas()
    assert set(personas) >= DEFAULTS
    defaults = [personas[name] for name in DEFAULTS]
    assert len({p.role for p in defaults}) == len(defaults)
    assert len({p.voice for p in defaults}) == len(defaults)
    for persona in defaults:
        assert persona.display_name in persona.profile  # the profile answers "who are you"
        assert persona.initial == persona.display_name[0]
        assert persona.lead_in


def test_lookup_is_case_insensitive_and_unknown_names_are_none() -> None:
    assert get_persona(" Gunnar ").name == "gunnar"
    assert get_persona("nobody") is None
    assert persona_names() == sorted(persona_names())


def test_a_persona_file_parses_and_unwraps_its_sections() -> None:
    persona = parse_persona(
        "---\nname: zed\ndisplay_name: Zed\nrole: Tester\ndescription: tests\n---\n"
        "## Profile\nI'm Zed,\nwrapped.\n## Voice\nTerse.\n"
    )
    assert (persona.profile, persona.voice, persona.lead_in) == ("I'm Zed, wrapped.", "Terse.", "")
    assert persona.summary()["initial"] == "Z"


@pytest.mark.parametrize(
    "source",
    [
        "no front matter",
        "---\nname: zed\ndisplay_name: Zed\nrole: Tester\n---\n## Profile\na\n## Voice\nb\n",
        "---\nname: Zed!\ndisplay_name: Z\nrole: T\ndescription: d\n---\n## Profile\na\n## Voice\n",
        "---\nname: zed\ndisplay_name: Zed\nrole: T\ndescription: d\n---\n## Profile\nonly\n",
    ],
)
def test_malformed_persona_files_are_refused(source: str) -> None:
    with pytest.raises(PromptError):
        parse_persona(source)
