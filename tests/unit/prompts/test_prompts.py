"""Prompt files: every one loads, declares exactly the variables it uses, renders strictly."""

import pytest

from shared.prompts import (
    MARKER,
    PromptError,
    load_prompt,
    parse_prompt,
    placeholders,
    prompt_names,
)

EXPECTED = {
    "classify",
    "classify_chunk",
    "chunk_1a",
    "chunk_1b",
    "artisan_cut_2a",
    "artisan_cut_2b",
    "turn_cut_2a",
    "turn_cut_2b",
    "summarise_section",
    "summarise_file",
}
_VALID = """---
name: demo
version: 2
description: a demo
variables: [text, count]
---
# system
Answer {"n": 1} as JSON.
# user
{{count}} characters: {{text}}
"""


def test_every_expected_prompt_exists() -> None:
    assert set(prompt_names()) >= EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prompt_loads_and_declares_exactly_the_variables_it_uses(name: str) -> None:
    prompt = load_prompt(name)
    assert prompt.name == name
    assert prompt.version >= 1
    assert prompt.description
    used = placeholders(prompt.system_template) | placeholders(prompt.user_template)
    assert used == set(prompt.variables)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prompt_renders_with_a_marker_and_asks_for_json_only(name: str) -> None:
    prompt = load_prompt(name)
    system, user = prompt.render(**{variable: f"<{variable}>" for variable in prompt.variables})
    found = MARKER.match(system)
    assert found and found.group("name") == name and int(found.group("version")) == prompt.version
    assert "JSON" in system and "nothing else" in system
    assert "{{" not in system + user
    for variable in prompt.variables:
        assert f"<{variable}>" in system + user


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_system_messages_are_static_for_prompt_caching(name: str) -> None:
    assert not placeholders(load_prompt(name).system_template)


def test_chunk_1a_states_the_character_count_and_the_last_end() -> None:
    system, user = load_prompt("chunk_1a").render(
        context_note="This is the complete document.", char_count=12345, text="..."
    )
    assert "LAST chunk" in system and "NOT by arbitrary character counts" in system
    assert "6-10 chunks" in system and "speaker" in system and "rearrange" in system
    assert user.count("12345") == 2


def test_render_refuses_missing_and_undeclared_variables() -> None:
    prompt = load_prompt("artisan_cut_2a")
    with pytest.raises(PromptError, match="missing \\['text'\\]"):
        prompt.render(title="t")
    with pytest.raises(PromptError, match="undeclared \\['extra'\\]"):
        prompt.render(title="t", text="x", extra="y")


def test_values_are_inserted_verbatim_once() -> None:
    prompt = parse_prompt(_VALID)
    system, user = prompt.render(text='{{count}} and {"json": true}', count=3)
    assert system == 'prompt: demo v2\nAnswer {"n": 1} as JSON.'
    assert user == '3 characters: {{count}} and {"json": true}'


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("# system\nx\n# user\ny", "front-matter"),
        (_VALID.replace("variables: [text, count]", "variables: [text]"), "declares"),
        (_VALID.replace("variables: [text, count]", "variables: [text, count, more]"), "uses"),
        (_VALID.replace("variables: [text, count]", "variables: text"), "must be a list"),
        (_VALID.replace("version: 2", "version: two"), "whole number"),
        (_VALID.replace("description: a demo\n", ""), "lacks"),
        (_VALID.replace("# user", "# assistant"), "'# system' then a '# user'"),
    ],
)
def test_malformed_prompt_files_are_refused(source: str, message: str) -> None:
    with pytest.raises(PromptError, match=message):
        parse_prompt(source)


def test_a_file_must_carry_its_own_name() -> None:
    with pytest.raises(PromptError, match="named 'demo'"):
        parse_prompt(_VALID, expected_name="other")


def test_unknown_and_unsafe_names_are_refused() -> None:
    with pytest.raises(PromptError, match="no prompt file"):
        load_prompt("no_such_prompt")
    with pytest.raises(PromptError, match="invalid prompt name"):
        load_prompt("../README")
