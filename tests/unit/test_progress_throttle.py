"""Progress events: every stage change at once, chunk counts at most every interval."""

from uuid import uuid4

from shared.progress import ProgressThrottle


def row(file_id: object, stage: str, processed: int = 0) -> dict[str, object]:
    return {"id": file_id, "processing_stage": stage, "processed_chunks": processed}


def test_every_stage_change_is_sent_and_counts_at_most_every_interval() -> None:
    throttle = ProgressThrottle(interval=0.25)
    file = uuid4()
    sent = [
        throttle.should_send(row(file, stage, n), now)
        for stage, n, now in [
            ("chunking", 0, 0.00),
            ("processing", 0, 0.01),  # a new stage: sent however soon
            ("processing", 1, 0.02),
            ("processing", 2, 0.20),
            ("processing", 3, 0.27),  # an interval after the last sent one
            ("processing", 4, 0.30),
            ("summarising", 5, 0.31),
            ("ready", 5, 0.32),
        ]
    ]
    assert sent == [True, True, False, False, True, False, True, True]


def test_files_are_throttled_each_on_its_own() -> None:
    throttle = ProgressThrottle(interval=0.25)
    first, second = uuid4(), uuid4()
    assert throttle.should_send(row(first, "processing", 1), 0.0)
    assert throttle.should_send(row(second, "processing", 1), 0.01)
    assert not throttle.should_send(row(first, "processing", 2), 0.02)


def test_memory_is_bounded() -> None:
    throttle = ProgressThrottle(interval=10, remembered=2)
    files = [uuid4() for _ in range(3)]
    for file in files:
        throttle.should_send(row(file, "processing"), 0.0)
    # the oldest was forgotten, so its next count is sent: never a lost stage change
    assert throttle.should_send(row(files[0], "processing", 1), 0.1)
    assert not throttle.should_send(row(files[2], "processing", 1), 0.1)


def test_a_retry_and_a_file_s_end_are_always_sent() -> None:
    throttle = ProgressThrottle(interval=0.25)
    file = uuid4()
    assert throttle.should_send({**row(file, "failed"), "attempt": 1}, 0.00)
    # the retry failed again at once: the same stage, but another attempt's news
    assert throttle.should_send({**row(file, "failed"), "attempt": 2}, 0.05)
    assert throttle.should_send({**row(file, "failed"), "attempt": 2}, 0.06)
