"""A model that failed, said in words people can act on: which model, doing which work, what
happened, and who can do what about it. A failed answer (the chat service) and a file that could
not be read (the pipeline) are told the same way. The error's own message (the endpoint's
address, its error body, our exception's name) stays in the service's log."""

from dataclasses import dataclass

from shared.errors import (
    ModelFailure,
    ModelOutputError,
    ModelRequestRejectedError,
    ModelTooSlowError,
)

TRY_AGAIN = "Try again in a moment"
ADMIN = "admin of this Artisan"
# the work each role does for a file, as its owner would name it
STEPS = {
    "classify": "classifying",
    "chunk": "chunking",
    "compress": "compressing",
    "verify": "verifying",
    "summarise": "summarising",
    "embed": "embedding",
    "memory": "learning facts",  # a turn's memory facts
}
EMBED_ROLE = "embed"


def _offline_rules(work: str) -> str:
    """Settings' choice that leaves `work` to the offline rules, and its setting's name for an
    Artisan configured by its environment (Docker compose, Kubernetes). The choice's label
    names files only, but it moves every ingestion role, a turn's journaling too."""
    return (
        f"let the offline rules {work}: in Settings, set 'The model does' to"
        " 'Answers; the offline rules read files' (ARTISAN_LLM_ROLES=answers)"
    )


OFFLINE_READING = _offline_rules("read files")
OFFLINE_JOURNALING = _offline_rules("journal turns")
# what a failed turn still has: no one can retry its journaling, so the owner learns what it costs
TURN_KEPT = (
    "The turn itself is kept, but without its journal entry later conversations may not recall it"
)


@dataclass(frozen=True)
class Failure:
    """What happened to a model call, and what the admin can change about it."""

    happened: str  # what the model did, after its name: "did not answer: it may be down or busy"
    fix: str  # what the admin can do, after "the admin of this Artisan can"
    retry_helps: bool  # whether the same call may succeed a moment later


def failure_of(exc: ModelFailure, tries: int = 1) -> Failure:
    """The kind of failure `exc` is, in words; `tries`: how many times the work asked it."""
    if isinstance(exc, ModelTooSlowError):
        return Failure(
            "took too long, so it was stopped", "choose a faster model in Settings", True
        )
    if isinstance(exc, ModelOutputError):
        return Failure(
            "answered in a form Artisan could not use",
            "choose a model that follows instructions more closely in Settings",
            True,
        )
    if isinstance(exc, ModelRequestRejectedError):
        return Failure(
            "could not be used: its service refused the request (its API key, model name or"
            " address is wrong)",
            "check them with Test connection in Settings",
            False,
        )
    after = f" after {tries} tries" if tries > 1 else ""
    return Failure(
        f"did not answer{after}: it may be down or busy",
        "check it with Test connection in Settings",
        True,
    )


def model_of(exc: ModelFailure) -> str:
    """'the language model writer-7b' (or the embedding model), named when it is known."""
    kind = "embedding model" if exc.role == EMBED_ROLE else "language model"
    return f"the {kind} {exc.model}" if exc.model else f"the {kind}"


def file_failure(exc: ModelFailure, tries: int) -> str:
    """Why a file failed on a model, after `tries` runs of its step: the model and its step,
    what happened, and what to do."""
    said, fixes, retry_helps = _said(exc, tries, "Reading this file", OFFLINE_READING)
    if retry_helps:
        return f"{said} Retry the file in a moment; if it keeps failing, the {ADMIN} can {fixes}."
    return f"{said} The {ADMIN} can {fixes}, then retry it."


def turn_failure(exc: ModelFailure, tries: int) -> str:
    """Why a turn's journaling failed on a model, after `tries` runs of its step: the model and
    its step, what happened, what the turn keeps, and what the admin can do for the next ones."""
    said, fixes, retry_helps = _said(exc, tries, "Journaling this turn", OFFLINE_JOURNALING)
    if retry_helps:
        return f"{said} {TURN_KEPT}; if turns keep failing, the {ADMIN} can {fixes}."
    return f"{said} {TURN_KEPT}. The {ADMIN} can {fixes}."


def _said(exc: ModelFailure, tries: int, work: str, offline: str) -> tuple[str, str, bool]:
    """'<work> needs the language model M (step), and it <happened>.', the admin's fixes, and
    whether a retry may help. The offline rules are offered for a language model's work only:
    another embedder means re-embedding everything, not a fix for one file or turn."""
    failure = failure_of(exc, tries)
    step = STEPS.get(exc.role)
    needs = f"{work} needs {model_of(exc)}" + (f" ({step})" if step else "")
    fixes = failure.fix if exc.role == EMBED_ROLE else f"{failure.fix}, or {offline}"
    return f"{needs}, and it {failure.happened}.", fixes, failure.retry_helps
