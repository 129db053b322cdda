"""The pipeline's outcomes as metrics: files finished, upload-to-ready time, failed steps, dead
letters. Each is counted from something the pipeline already has in hand (a committed files row,
a delivery's metadata), so none costs a query."""

from collections.abc import Mapping, Sequence
from typing import Any

from prometheus_client import Counter, Histogram

from shared.contracts import Consumer
from shared.metrics.bus import subject_label

# seconds from upload to ready: a small file takes one, a long transcript on a remote model minutes
READY_BUCKETS = (0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)

_CONSUMERS = frozenset(Consumer)
FILES_FINISHED = Counter(
    "artisan_files_finished",
    "Files whose processing ended, by status (ready | failed); retries and updates count again",
    ["status"],
)
UPLOAD_TO_READY = Histogram(
    "artisan_file_upload_to_ready_seconds",
    "Seconds from a file's upload to ready, for its first processing attempt (queueing included)",
    buckets=READY_BUCKETS,
)
STEP_FAILURES = Counter(
    "artisan_step_failures",
    "Deliveries whose step raised, by subject: retried (handed back) or gave_up (the file or"
    " turn failed)",
    ["subject", "outcome"],
)
TURNS_FAILED = Counter("artisan_turns_failed", "Turns whose way into the journal failed")
REDRIVES = Counter(
    "artisan_redrives",
    "Quiet work the gateway started over (its messages were lost), by kind (file | turn)",
    ["kind"],
)
DEAD_LETTERS = Counter(
    "artisan_dead_letters",
    "Messages whose deliveries ran out without an answer (a crashing service), by consumer",
    ["consumer"],
)


def observe_file_row(row: Mapping[str, Any]) -> None:
    """Count a committed files row that ended its processing (called for every announced row)."""
    status = row["status"]
    if status not in ("ready", "failed"):
        return
    FILES_FINISHED.labels(status).inc()
    if status == "ready" and row["attempt"] == 1:
        UPLOAD_TO_READY.observe((row["updated_at"] - row["uploaded_at"]).total_seconds())


def count_step_failure(subject: str, *, gave_up: bool) -> None:
    STEP_FAILURES.labels(subject_label(subject), "gave_up" if gave_up else "retried").inc()


def count_turn_failed(turns: int = 1) -> None:
    TURNS_FAILED.inc(turns)


def count_redrives(
    *, files: int, turns: int, failed_files: Sequence[Mapping[str, Any]], failed_turns: int
) -> None:
    """What one pass of the gateway's re-drive did: work restarted, and work that stalled too
    often and failed."""
    REDRIVES.labels("file").inc(files)
    REDRIVES.labels("turn").inc(turns)
    for row in failed_files:
        observe_file_row(row)
    count_turn_failed(failed_turns)


def count_dead_letter(consumer: str) -> None:
    DEAD_LETTERS.labels(consumer if consumer in _CONSUMERS else "other").inc()
