"""Prompt tokens saved by attaching a file as a reference (seed 004: > 90% expected).

Run:  .venv/bin/python -m tests.benchmarks.attachment_tokens [--chars 320000]

The same call 1A prompt for "Summarise this meeting" is rendered twice, counted with the
project's token counter (shared/text/tokens.py): once as Artisan sends it when the document tool
will read the file (the attachment as `[Attached: name]` and its file id, with the tool guide),
once with the transcript pasted into the context as the seed's "before" did. The transcripts are
the meeting fixture and generated expert interviews of the given sizes.
"""

import argparse
import uuid

from shared.contracts import ContextBundle, ContextItem, ContextSection
from shared.personas import get_persona
from shared.prompts import load_prompt
from shared.providers.llm.answer import render_context, render_instructions, with_tools
from shared.text.tokens import count_tokens
from tests.fixtures.meeting_transcript import STANDUP_TRANSCRIPT
from tests.fixtures.transcripts import interview_transcript

QUESTION = "Summarise this meeting"
FILENAME = "weekly-sync.txt"


class _Attached:
    """The ToolBox's shape as the prompt reads it: the tools and the attached file."""

    def __init__(self) -> None:
        self.specs: list[dict[str, object]] = []
        self.attachments = [(uuid.uuid4(), FILENAME)]

    async def call(self, name: str, arguments: str) -> str:
        return ""


def prompt_tokens(file_text: str | None) -> int:
    """Tokens of call 1A's messages: the file pasted (text) or referenced (None)."""
    if file_text is None:
        item = ContextItem(
            kind="attachment", id=uuid.uuid4(), text=f"[Attached: {FILENAME}]", tokens=0
        )
    else:
        pasted = f"File: {FILENAME}\n----\nFileContents:\n{file_text}"
        item = ContextItem(kind="attachment", id=uuid.uuid4(), text=pasted, tokens=0)
    bundle = ContextBundle(
        persona="gunnar",
        query=QUESTION,
        path="search",
        sections=[ContextSection(name="files", priority="F", items=[item])],
        references=[],
        total_tokens=0,
        cap_tokens=0,
        retrieval_confidence=0.0,
        journal_entries=0,
    )
    persona = get_persona("gunnar")
    assert persona is not None
    system, user = load_prompt("chat_1a").render(
        persona_name=persona.display_name,
        persona_role=persona.role,
        persona_profile=persona.profile,
        persona_voice=persona.voice,
        instructions=render_instructions(bundle),
        context=render_context(bundle),
        question=QUESTION,
    )
    if file_text is None:
        system = with_tools(system, _Attached())  # the tool guide and the file's id
    return count_tokens(system) + count_tokens(user)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, nargs="*", default=[65_000, 320_000])
    args = parser.parse_args()
    texts = {"meeting fixture": STANDUP_TRANSCRIPT}
    for chars in args.chars:
        texts[f"interview {chars:,} chars"] = interview_transcript(total_chars=chars)
    referenced = prompt_tokens(None)
    print(f"{'transcript':<28}{'file tokens':>12}{'pasted':>10}{'referenced':>12}{'saved':>8}")
    for name, text in texts.items():
        pasted = prompt_tokens(text)
        saved = 1 - referenced / pasted
        print(f"{name:<28}{count_tokens(text):>12,}{pasted:>10,}{referenced:>12,}{saved:>8.1%}")


if __name__ == "__main__":
    main()
