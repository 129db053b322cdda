"""Files finished, upload-to-ready time, failed steps and dead letters, from what the pipeline
already holds."""

from datetime import UTC, datetime, timedelta

from prometheus_client import REGISTRY

from shared.metrics.pipeline import (
    count_dead_letter,
    count_redrives,
    count_step_failure,
    observe_file_row,
)

UPLOADED = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def sample(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


def row(status: str, attempt: int = 1, seconds: float = 0.0) -> dict:
    return {
        "status": status,
        "attempt": attempt,
        "uploaded_at": UPLOADED,
        "updated_at": UPLOADED + timedelta(seconds=seconds),
    }


def test_a_first_ready_is_timed_from_upload() -> None:
    ready = sample("artisan_files_finished_total", {"status": "ready"})
    timed = sample("artisan_file_upload_to_ready_seconds_count")
    total = sample("artisan_file_upload_to_ready_seconds_sum")

    observe_file_row(row("ready", seconds=7.5))

    assert sample("artisan_files_finished_total", {"status": "ready"}) == ready + 1
    assert sample("artisan_file_upload_to_ready_seconds_count") == timed + 1
    assert sample("artisan_file_upload_to_ready_seconds_sum") == total + 7.5


def test_a_later_attempt_counts_but_is_not_timed_from_the_first_upload() -> None:
    ready = sample("artisan_files_finished_total", {"status": "ready"})
    failed = sample("artisan_files_finished_total", {"status": "failed"})
    timed = sample("artisan_file_upload_to_ready_seconds_count")

    observe_file_row(row("ready", attempt=2, seconds=86_400))
    observe_file_row(row("failed"))
    observe_file_row(row("processing"))

    assert sample("artisan_files_finished_total", {"status": "ready"}) == ready + 1
    assert sample("artisan_files_finished_total", {"status": "failed"}) == failed + 1
    assert sample("artisan_file_upload_to_ready_seconds_count") == timed


def test_step_failures_and_dead_letters_have_fixed_labels() -> None:
    retried = {"subject": "chunk.ready.strategic", "outcome": "retried"}
    gave_up = {"subject": "progress.*", "outcome": "gave_up"}
    before = (
        sample("artisan_step_failures_total", retried),
        sample("artisan_step_failures_total", gave_up),
    )
    other = sample("artisan_dead_letters_total", {"consumer": "other"})
    compressor = sample("artisan_dead_letters_total", {"consumer": "compressor"})

    count_step_failure("chunk.ready.strategic", gave_up=False)
    count_step_failure("progress.some-user.some-file", gave_up=True)
    count_dead_letter("compressor")
    count_dead_letter("not-one-of-ours")

    assert sample("artisan_step_failures_total", retried) == before[0] + 1
    assert sample("artisan_step_failures_total", gave_up) == before[1] + 1
    assert sample("artisan_dead_letters_total", {"consumer": "compressor"}) == compressor + 1
    assert sample("artisan_dead_letters_total", {"consumer": "other"}) == other + 1


def test_a_redrive_pass_counts_restarts_and_failures() -> None:
    files = sample("artisan_redrives_total", {"kind": "file"})
    turns = sample("artisan_redrives_total", {"kind": "turn"})
    failed = sample("artisan_files_finished_total", {"status": "failed"})
    turns_failed = sample("artisan_turns_failed_total")

    count_redrives(files=2, turns=1, failed_files=[row("failed")], failed_turns=3)

    assert sample("artisan_redrives_total", {"kind": "file"}) == files + 2
    assert sample("artisan_redrives_total", {"kind": "turn"}) == turns + 1
    assert sample("artisan_files_finished_total", {"status": "failed"}) == failed + 1
    assert sample("artisan_turns_failed_total") == turns_failed + 3
