"""Personas: one file per advisor in `prompts/personas/<name>.md`; drop a file in to add one.

A persona file is a front-matter block (`name`, `display_name`, `role`, `description`, an
optional `lead_in`, and optional `openers`: for each kind of extractive answer — `fact`,
`summary`, `advice` — a few one-clause openings in the persona's voice) and a body with a
`## Profile` section (first person: who the persona is, used for name questions) and a
`## Voice` section (how the persona speaks, given to the answering model).
"""

import logging
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from shared.prompts import PROMPTS_DIR, PromptError, split_front_matter

logger = logging.getLogger(__name__)
PERSONAS_DIR = PROMPTS_DIR / "personas"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_REQUIRED_KEYS = ("name", "display_name", "role", "description")
_SECTION = re.compile(r"^## (Profile|Voice)[ \t]*$", re.MULTILINE)
ANSWER_KINDS = ("fact", "summary", "advice")
# an advice question offline, for a persona whose file words no opener for it: honest all the same
ADVICE_OPENER = "No language model is connected, so this is not advice, only what your records say:"


@dataclass(frozen=True)
class Persona:
    name: str
    display_name: str
    role: str
    description: str
    profile: str
    voice: str
    lead_in: str = ""
    openers: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (kind, its openings) pairs

    @property
    def initial(self) -> str:
        return self.display_name[:1].upper()

    def opening(self, kind: str, question: str = "") -> str:
        """The opening of an extractive answer of `kind` (fact, summary, advice): one of the
        persona's openers for it, picked by the question so that answers do not all open
        alike; else its lead_in (for advice, an opening that says it is not advice)."""
        choices = dict(self.openers).get(kind, ())
        if not choices:
            return ADVICE_OPENER if kind == "advice" else self.lead_in
        return choices[zlib.crc32(" ".join(question.lower().split()).encode()) % len(choices)]

    def summary(self) -> dict[str, str]:
        """The public JSON shape of GET /v1/personas."""
        return {
            "name": self.name,
            "display_name": self.display_name,
            "role": self.role,
            "initial": self.initial,
            "description": self.description,
        }


def parse_persona(source: str, expected_name: str | None = None) -> Persona:
    """A Persona from a file's text; PromptError names what is wrong with it."""
    front, body = split_front_matter(source)
    openers = _openers(front.pop("openers", None))
    meta = {key: str(value) for key, value in front.items() if value is not None}
    missing = [key for key in _REQUIRED_KEYS if not meta.get(key)]
    if missing:
        raise PromptError(f"persona front matter lacks {missing}")
    name = meta["name"]
    if not _NAME.match(name):
        raise PromptError(f"persona name {name!r} must be lower case letters, digits or _")
    if expected_name is not None and name != expected_name:
        raise PromptError(f"persona file {expected_name}.md is named {name!r} inside")
    sections = _sections(name, body)
    return Persona(
        name=name,
        display_name=meta["display_name"],
        role=meta["role"],
        description=meta["description"],
        profile=sections["Profile"],
        voice=sections["Voice"],
        lead_in=meta.get("lead_in", ""),
        openers=openers,
    )


def _openers(found: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`openers:` as (kind, openings) pairs: each kind maps to one opening or a list of them."""
    if found is None:
        return ()
    if not isinstance(found, dict) or not set(found) <= set(ANSWER_KINDS):
        raise PromptError(f"persona openers must map some of {list(ANSWER_KINDS)} to openings")
    pairs = []
    for kind, said in found.items():
        openings = [said] if isinstance(said, str) else said
        if not isinstance(openings, list) or not all(
            isinstance(o, str) and o.strip() for o in openings
        ):
            raise PromptError(f"persona openers for {kind!r} must be text or a list of texts")
        pairs.append((kind, tuple(" ".join(o.split()) for o in openings)))
    return tuple(pairs)


def _sections(name: str, body: str) -> dict[str, str]:
    found = list(_SECTION.finditer(body))
    if sorted(match.group(1) for match in found) != ["Profile", "Voice"]:
        raise PromptError(f"persona {name!r} needs one '## Profile' and one '## Voice' section")
    sections = {}
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(body)
        # the body is wrapped for reading; the profile is used as prose, so unwrap it
        sections[match.group(1)] = " ".join(body[match.end() : end].split())
    return sections


@lru_cache
def load_personas(directory: Path = PERSONAS_DIR) -> dict[str, Persona]:
    """Every persona file, by name, parsed once per process. A malformed file is skipped with
    a warning that says what is wrong: one bad drop-in must not take every persona down."""
    personas = {}
    for path in sorted(directory.glob("*.md")):
        if path.stem == "README":
            continue
        try:
            persona = parse_persona(path.read_text(encoding="utf-8"), expected_name=path.stem)
        except (PromptError, OSError, UnicodeDecodeError) as exc:
            logger.warning("persona file %s skipped: %s", path, exc)
            continue
        personas[persona.name] = persona
    return personas


def get_persona(name: str) -> Persona | None:
    """The persona called `name` (any case), or None."""
    return load_personas().get(name.strip().lower())


def persona_names() -> list[str]:
    """Names of every persona, sorted."""
    return sorted(load_personas())


_NAME_QUESTIONS = (
    "who are you",
    "what is your name",
    "what's your name",
    "whats your name",
    "what are you called",
    "introduce yourself",
    "tell me about yourself",
)
_NAME_QUESTION_MAX_WORDS = 10  # a long message that also asks "who are you" is a real question


def is_name_question(message: str) -> bool:
    """A question about the persona itself (seed 003): answered from its profile, no search."""
    text = " ".join(re.sub(r"[^\w\s']", " ", message.lower().replace("’", "'")).split())
    if len(text.split()) > _NAME_QUESTION_MAX_WORDS:
        return False
    return any(re.search(rf"\b{re.escape(phrase)}\b", text) for phrase in _NAME_QUESTIONS)
