"""Seed 002's instruction detection: a lasting directive to the personas about how they respond.

A sentence clause is a directive when it is addressed to the persona (an imperative such as
"don't", "never", "always", "stop", "avoid", "keep", a lead-in such as "from now on", or a
phrase such as "I want you to", "you should", "I prefer") AND it speaks about response
behaviour (style, format, tone, analogies, length, language, follow-up questions). Statements
about the business ("we never hit our Q3 target", "always-on pricing is a risk") are neither,
and nor is a request to keep information ("our staging password is ..., keep it handy").
"""

import re
from dataclasses import dataclass
from functools import lru_cache

from shared.memory_rule import instruction_scope, persona_alternation
from shared.providers.local.persons import swap_persons
from shared.text.sentences import sentence_spans

# words that may open a clause before its verb: vocatives, politeness, discourse fillers (the
# personas' names join them in _lead_words())
_LEAD_WORDS = (
    r"please|pls|also|and|but|so|oh|ok|okay|hey|hi|just|seriously|again|one more thing"
    r"|guys|team|folks|all of you|everyone|everybody|any of you|each of you|you all"
)
# imperatives that, at the start of a clause, speak to the persona about its conduct
_IMPERATIVE = re.compile(
    r"^(?:don'?t|do not|never|always|stop|quit|avoid|keep|refrain from|no more|make sure"
    r"|remember to|try (?:not )?to|be|use|answer|respond|reply|write|talk|speak|explain"
    r"|ask|give me|format|drop|cut|skip|call me|address me)(?![\w-])",
    re.IGNORECASE,
)
# imperatives that are one-off requests unless something in the sentence makes them lasting
_ONE_OFF_VERBS = re.compile(
    r"^(?:use|answer|respond|reply|write|talk|speak|explain|ask|give me|format|drop|cut|skip)\b",
    re.IGNORECASE,
)
_LASTING = re.compile(
    r"\b(?:from now on|going forward|moving forward|from here on(?: out)?|in (?:the )?future"
    r"|every time|each time|whenever|at all times|any ?more|ever again|always|never)(?![\w-])",
    re.IGNORECASE,
)
_OPENING_LASTING = re.compile(
    r"^(?:from now on|going forward|moving forward|from here on(?: out)?|in (?:the )?future)"
    r"\b\s*",
    re.IGNORECASE,
)
_OTHER_SUBJECT = re.compile(
    r"^(?:we|i|our|us|they|their|he|she|it|this|that|these|those|the|my|customers|clients)\b",
    re.IGNORECASE,
)
_ADDRESSED = re.compile(
    r"\b(?:i(?: want| need| would like|'d like| expect) you to|i(?:'d| would) rather you"
    r"|i(?:'d| would)? prefer|i (?:really )?(?:hate|dislike|can'?t stand)"
    r"|i (?:don'?t|do not) (?:like|want)|i (?:really )?(?:like|love) (?:it )?when you"
    r"|you (?:should|must|need to|have to|always|never|keep)"
    r"|tell (?:him|her|them|\w+) to (?:stop|always|never|not|avoid|keep)"
    r"|(?:can|could|would|will) you (?:please )?(?:stop|always|never|avoid|not|keep|try))\b",
    re.IGNORECASE,
)
# how "keep it ..." describes an answer ("keep it short"; "keep it handy" is about information)
_KEPT_STYLE = (
    r"short(?:er)?|brief(?:er)?|simple(?:r)?|concise|tight(?:er)?|crisp|snappy|punchy|light"
    r"|casual|formal|professional|friendly|clean|plain|focused|direct|high[- ]level"
    r"|to the point|under \d+|below \d+|factual|neutral|real"
)
# a request to keep or remember information ("keep these references handy", "keep in mind
# that ..."): it says nothing about how the persona responds, whatever words it holds
_INFORMATION_REQUEST = re.compile(
    r"^(?:keep|remember|save|store|note)\b.*?\b(?:handy|in mind|safe|on file|on record"
    r"|for (?:later|reference|future reference|next time)|somewhere|track of"
    r"|a (?:note|record|copy) of|hold of)(?![\w-])",
    re.IGNORECASE,
)
# what a directive is about: how the persona answers
_BEHAVIOUR = re.compile(
    r"\b(?:analog(?:y|ies)|metaphors?|jargon|buzzwords?|bullet(?:s| points?)?|lists|numbered"
    r"|format(?:ting|ted)?|markdown|tables|headings|headers|tone|formal(?:ly)?|informal|casual"
    r"|concise(?:ly)?|brief(?:ly)?|verbose|wordy|long-winded|rambl\w*|waffl\w*|length|emojis?"
    r"|emoticons|language|english|german|french|spanish|dutch|italian|swedish|hindi|jokes?"
    r"|humou?r|sarcas\w*|slang|swear\w*|follow[- ]?up|questions?|clarifying|examples"
    r"|an example|sugar-?coat\w*|hedg\w*|filler|preamble|disclaimers?|apologi[sz]\w*"
    r"|flatter\w*|prais\w* me|compliment\w* me|caveats?|challenge me|push back|devil'?s advocate"
    r"|agree with me|blunt\w*|polite\w*|friendl\w*|exclamation|all caps|capital letters"
    r"|citations?|cite|sources|references|plain english|plain language|simple (?:terms|words"
    r"|language)|technical (?:terms|language|details)|step by step|reasoning|tl;?dr"
    r"|summar(?:y|ies|ise|ize)|call me|address me|my name|metric units|imperial units"
    r"|(?:\d+|few|fewer|short|shorter|long|longer) (?:words|sentences|paragraphs|lines"
    r"|characters)"
    r"|(?:your|each|every|all|short(?:er)?|long(?:er)?) (?:answers?|responses?|replies|reply"
    r"|explanations?|messages?)"
    r"|(?:answer|respond|reply|explain|talk|speak|write)(?:ing)? (?:in|with|like|as|using|to me"
    r"|more|less|briefly|shortly|formally|casually|directly|plainly|simply)"
    r"|keep (?:it|them|things|answers|responses|replies|everything) (?:" + _KEPT_STYLE + r"))\b",
    re.IGNORECASE,
)
# a directive clause as the persona's first-person promise (its pronouns swapped)
_PROMISES = tuple(
    (re.compile(pattern, re.IGNORECASE), template)
    for pattern, template in (
        (r"(?:don'?t|do not|never)(?: ever)?\s+(?P<rest>.+)", "I won't {rest}"),
        (r"(?:stop|quit)\s+(?P<rest>.+)", "I'll stop {rest}"),
        (r"no more\s+(?P<rest>.+)", "I'll drop the {rest}"),
        (r"tell \w+ to\s+(?P<rest>.+)", "I'll {rest}"),
        (
            r"(?:i (?:want|need|would like|'d like|expect) you to|you (?:should|must|need to"
            r"|have to)|(?:can|could|would|will) you(?: please)?"
            r"|i(?:'d| would)? prefer (?:it if )?you)\s+(?P<rest>.+)",
            "I'll {rest}",
        ),
        (
            r"(?P<rest>(?:always|avoid|keep|use|answer|respond|reply|write|talk|speak|explain"
            r"|ask|format|drop|cut|skip|be|make sure|remember to|try(?: not)? to|refrain from"
            r"|give|call|address)\b.*)",
            "I'll {rest}",
        ),
    )
)
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:()]|—|–|\s-\s)\s*")
_NAMING = re.compile(r"^(?i:call me|address me as|refer to me as)\s+[A-Z]")  # a name: a fact
# "you, Gunnar, should ..." reads as "you should ...": the name only says whom it is for
_YOU_NAMED = re.compile(r"\byou\s*,\s*[A-Z][a-z]+\s*,\s*", re.IGNORECASE)


@lru_cache
def _lead_words() -> re.Pattern[str]:
    """Vocatives, politeness and fillers before a clause's verb, the personas' names among them."""
    return re.compile(rf"^(?:(?:{_LEAD_WORDS}|{persona_alternation()})\b[\s!,.:]*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Instruction:
    """Whether a user message holds a lasting behavioural directive, and for whom."""

    is_instruction: bool
    scope: str | None  # 'global', a persona's name, or None when not an instruction
    sentences: tuple[str, ...] = ()  # the directive sentences, in order


def detect_instruction(user_message: str, persona: str) -> Instruction:
    """Seed 002's is_instruction and instruction_scope for a message sent to `persona`."""
    directives = directive_sentences(user_message)
    if not directives:
        return Instruction(False, None)
    return Instruction(True, instruction_scope(user_message, directives, persona), directives)


def directive_sentences(message: str) -> tuple[str, ...]:
    """The sentences of a message that hold a directive about the persona's responses."""
    sentences = (" ".join(message[start:end].split()) for start, end in sentence_spans(message))
    return tuple(sentence for sentence in sentences if is_directive(sentence))


def without_directives(message: str) -> str:
    """The message's other sentences, one a line: what it says besides its directives."""
    spans = sentence_spans(message)
    kept = (message[start:end] for start, end in spans)
    return "\n".join(s for s in kept if not is_directive(" ".join(s.split())))


def is_directive(sentence: str) -> bool:
    """A clause addressed to the persona that speaks about how it responds."""
    return directive_clause(sentence) is not None


def directive_clause(sentence: str) -> str | None:
    """The sentence's first directive clause, without its address and lead-in ("Gunnar, from
    now on, don't use analogies." → "don't use analogies."), or None."""
    lasting = bool(_LASTING.search(sentence))
    lead_in = False  # "From now on," alone addresses the clause after it
    for clause in _CLAUSE_BREAK.split(_YOU_NAMED.sub("you ", sentence)):
        core = _lead_words().sub("", clause).strip()
        if opening := _OPENING_LASTING.match(core):  # "from now on talk to me like …"
            core, lead_in = core[opening.end() :].strip(), True
        if not core:
            continue  # a vocative, "please" or a lead-in alone: what follows is addressed
        if _NAMING.match(core):
            return None  # "call me Maya" says who the user is: a fact (shared/memory_rule.py)
        # "From now on, we …" is about the business; "From now on, answer …" is to the persona
        lead_in = lead_in and not _OTHER_SUBJECT.match(core)
        addressed = lead_in or bool(_ADDRESSED.search(core)) or _imperative(core, lasting)
        if addressed and _BEHAVIOUR.search(core):
            return core
        lead_in = False
    return None


def promise(clause: str) -> str:
    """A directive clause as the persona's promise ("don't use analogies" → "I won't use
    analogies from now on"); a preference it does not rephrase is repeated back ("you prefer
    short answers; I'll keep that in mind from now on")."""
    text = clause.strip().rstrip(".!?…").strip()
    for pattern, template in _PROMISES:
        if match := pattern.fullmatch(text):
            rest = swap_persons(match.group("rest"))
            rest = rest if re.match(r"I\b", rest) else rest[:1].lower() + rest[1:]
            said = template.format(rest=rest)
            return said if _LASTING.search(said) else f"{said} from now on"
    return f"{swap_persons(text)}; I'll keep that in mind from now on"


def _imperative(clause: str, lasting: bool) -> bool:
    """An imperative opening; 'use', 'answer' and the like only count when made lasting; 'keep
    this handy', 'remember to keep it on file' ask to keep information, not to behave."""
    if not _IMPERATIVE.match(clause) or _INFORMATION_REQUEST.match(clause):
        return False
    return lasting or not _ONE_OFF_VERBS.match(clause)


def without_address(sentence: str) -> str:
    """A directive without its vocative and politeness ('Gunnar, please don't …' → "don't …")."""
    return _lead_words().sub("", sentence).strip() or sentence
