"""Durable memory facts by a chat model (seed 001), held to the same bar as the local rules."""

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from shared.domain import MemoryFact
from shared.prompts import load_prompt
from shared.providers.base import ChatModel
from shared.providers.llm.inputs import excerpt
from shared.secrets import contains_secret

ROLE = "memory"
MIN_CONFIDENCE = 0.8
MESSAGE_MAX_CHARS = 12_000
MAX_FACT_CHARS = 300
NO_INSTRUCTION = "none"  # the prompt's instruction_scope when the turn holds no instruction


def _label(value: Any) -> Any:
    return value.strip().strip("'\"").lower() if isinstance(value, str) else value


def _percent(value: Any) -> Any:
    """93 from a model that answers in percent reads as 0.93."""
    if isinstance(value, int | float) and 1 < value <= 100:
        return value / 100
    return value


class FactAnswer(BaseModel):
    kind: Annotated[str, BeforeValidator(_label)]
    fact: str
    confidence: Annotated[float, BeforeValidator(_percent)] = Field(ge=0, le=1)


class MemoryFactsAnswer(BaseModel):
    facts: list[FactAnswer] = Field(default_factory=list)


def keep(answer: MemoryFactsAnswer) -> list[MemoryFact]:
    """Only facts of a known kind, above the confidence bar, short, and holding no secret."""
    kept: dict[tuple[str, str], MemoryFact] = {}
    for item in answer.facts:
        fact = " ".join(item.fact.split())
        if item.kind not in ("user", "company") or not fact or len(fact) > MAX_FACT_CHARS:
            continue
        if item.confidence <= MIN_CONFIDENCE or contains_secret(fact):
            continue
        fact_model = MemoryFact(kind=item.kind, fact=fact, confidence=item.confidence)
        kept.setdefault((item.kind, fact.lower()), fact_model)
    return list(kept.values())


class LLMMemoryExtractor:
    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    async def extract_facts(
        self,
        user_message: str,
        ai_response: str,
        persona: str,
        *,
        instruction_scope: str | None = None,
    ) -> list[MemoryFact]:
        """The model is told whom an instruction in the turn is for and leaves its directive out
        (facts reach every persona); it decides which words are the directive."""
        system, user = load_prompt("memory_facts").render(
            persona=persona,
            instruction_scope=instruction_scope or NO_INSTRUCTION,
            user_message=excerpt(user_message, MESSAGE_MAX_CHARS),
            ai_response=excerpt(ai_response, MESSAGE_MAX_CHARS),
        )
        answer = await self.chat.complete_json(
            role=ROLE, system=system, user=user, schema=MemoryFactsAnswer
        )
        return keep(answer)
