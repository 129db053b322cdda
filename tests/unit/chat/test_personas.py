"""Personas load from prompts/personas/, each distinct, and malformed files are refused."""

import logging
from pathlib import Path

import pytest

from shared import memory_rule
from shared.personas import PERSONAS_DIR, get_persona, load_personas, parse_persona, persona_names
from shared.prompts import PromptError
from shared.providers.local import instructions

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


ZED = "---\nname: zed\ndisplay_name: Zed\nrole: Tester\ndescription: tests\n---\n"
ZED += "## Profile\nI'm Zed.\n## Voice\nTerse.\n"


def test_a_malformed_drop_in_is_skipped_with_a_warning_and_the_others_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "zed.md").write_text(ZED)
    (tmp_path / "broken.md").write_text("---\nname: broken\n---\nno sections\n")
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe\x00")
    with caplog.at_level(logging.WARNING, logger="shared.personas"):
        personas = load_personas(tmp_path)
    assert list(personas) == ["zed"]
    assert "broken.md" in caplog.text and "binary.md" in caplog.text


def test_a_drop_in_persona_can_be_given_instructions_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "zed.md").write_text(ZED)
    (tmp_path / "gunnar.md").write_text((PERSONAS_DIR / "gunnar.md").read_text())
    monkeypatch.setattr(memory_rule, "load_personas", lambda: load_personas(tmp_path))
    _forget_persona_patterns()
    try:
        found = instructions.detect_instruction("Zed, never use sports analogies.", "gunnar")
        assert (found.is_instruction, found.scope) == (True, "zed")
        assert memory_rule.normalise_scope("Zed", "gunnar") == "zed"
        assert memory_rule.normalise_scope("vlad", "gunnar") is None  # not among these files
    finally:
        _forget_persona_patterns()


def _forget_persona_patterns() -> None:
    memory_rule.clear_caches()
    instructions._lead_words.cache_clear()
