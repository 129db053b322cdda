"""Prompts as files: `prompts/<name>.md`, loaded by name, rendered with declared variables.

A prompt file is a YAML front-matter block (`name`, `version`, `description`, `variables: [..]`) and
two sections, `# system` and `# user`, with `{{variable}}` placeholders. Double braces leave the
JSON examples in the prompts alone. Rendering prefixes the system message with a marker line,
`prompt: <name> v<version>`, so server logs and test fakes can tell the calls apart.
"""

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from shared.config import REPO_ROOT

PROMPTS_DIR = REPO_ROOT / "prompts"
PLACEHOLDER = re.compile(r"\{\{([A-Za-z_]\w*)\}\}")
MARKER = re.compile(r"\Aprompt: (?P<name>[a-z0-9_]+) v(?P<version>\d+)\n")
_NAME = re.compile(r"^[a-z0-9_]+$")
_SECTION = re.compile(r"^# (system|user)[ \t]*$", re.MULTILINE)
_REQUIRED_KEYS = ("name", "version", "description", "variables")


class PromptError(ValueError):
    """A prompt file is malformed, or a render call does not match its declared variables."""


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    description: str
    variables: tuple[str, ...]
    system_template: str
    user_template: str

    @property
    def marker(self) -> str:
        return f"prompt: {self.name} v{self.version}"

    def render(self, **variables: object) -> tuple[str, str]:
        """(system, user) messages with every declared variable filled in, and only those."""
        missing = [name for name in self.variables if name not in variables]
        undeclared = sorted(set(variables) - set(self.variables))
        if missing or undeclared:
            raise PromptError(
                f"prompt {self.name!r} declares {list(self.variables)}; "
                f"missing {missing}, undeclared {undeclared}"
            )
        values = {name: str(value) for name, value in variables.items()}
        system = _fill(self.system_template, values)
        return f"{self.marker}\n{system}", _fill(self.user_template, values)


def _fill(template: str, values: dict[str, str]) -> str:
    # one pass: a value that itself contains "{{x}}" is inserted as it is, never expanded
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def placeholders(template: str) -> set[str]:
    """The variable names a template uses."""
    return set(PLACEHOLDER.findall(template))


@lru_cache
def load_prompt(name: str) -> Prompt:
    """The prompt `prompts/<name>.md`, parsed and checked once per process."""
    if not _NAME.match(name):
        raise PromptError(f"invalid prompt name {name!r}")
    path = PROMPTS_DIR / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"no prompt file {path}")
    return parse_prompt(path.read_text(encoding="utf-8"), expected_name=name)


def prompt_names() -> list[str]:
    """Names of all prompt files (README.md is documentation, not a prompt)."""
    return sorted(path.stem for path in PROMPTS_DIR.glob("*.md") if path.stem != "README")


def parse_prompt(source: str, expected_name: str | None = None) -> Prompt:
    """A Prompt from a file's text; PromptError names what is wrong with it."""
    meta, body = split_front_matter(source)
    missing = [key for key in _REQUIRED_KEYS if key not in meta]
    if missing:
        raise PromptError(f"prompt front matter lacks {missing}")
    name = str(meta["name"])
    if expected_name is not None and name != expected_name:
        raise PromptError(f"prompt file {expected_name}.md is named {name!r} inside")
    version = meta["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise PromptError(f"prompt {name!r}: version must be a whole number")
    system, user = _sections(name, body)
    variables = _variable_list(name, meta["variables"])
    used = placeholders(system) | placeholders(user)
    if used != set(variables):
        raise PromptError(f"prompt {name!r} declares {sorted(variables)} but uses {sorted(used)}")
    return Prompt(name, version, str(meta["description"]), variables, system, user)


def split_front_matter(source: str) -> tuple[dict[str, object], str]:
    """A file's `---` front matter (YAML, a mapping), and the text after it."""
    lines = source.splitlines()
    if not lines or lines[0].strip() != "---":
        raise PromptError("a prompt starts with a '---' front-matter block")
    try:
        closing = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
    except StopIteration:
        raise PromptError("the prompt's front matter is not closed with '---'") from None
    try:
        meta = yaml.safe_load("\n".join(lines[1:closing])) or {}
    except yaml.YAMLError as error:
        raise PromptError(f"the front matter is not valid YAML: {error}") from None
    if not isinstance(meta, dict):
        raise PromptError("the front matter must be 'key: value' lines")
    return meta, "\n".join(lines[closing + 1 :])


def _sections(name: str, body: str) -> tuple[str, str]:
    found = [(match.group(1), match.start(), match.end()) for match in _SECTION.finditer(body)]
    if [section for section, _, _ in found] != ["system", "user"]:
        raise PromptError(f"prompt {name!r} needs a '# system' then a '# user' section")
    (_, _, system_start), (_, user_heading, user_start) = found
    return body[system_start:user_heading].strip("\n"), body[user_start:].strip("\n")


def _variable_list(name: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PromptError(f"prompt {name!r}: variables must be a list like [text, title]")
    variables = tuple(value)
    if len(set(variables)) != len(variables):
        raise PromptError(f"prompt {name!r} declares a variable twice")
    return variables
