"""Progress events as SSE: their ids, and the per-file filter that keeps a stream moving forward.

Event ids are `<file_id>:<progress 000-100>:<processed chunks 000000>:<finished 0|1>:<status>`,
e.g. `0b6c…:072:000005:0:processing`. Within one processing attempt they increase (as strings
too), so a client can compare them; the server uses `Last-Event-ID` only to know a client is
reconnecting (it always sends the current state from the database first) and to answer 204 to a
client that already has a finished file's final event.
"""

from uuid import UUID

from sse_starlette import ServerSentEvent

from shared.contracts import ProgressEvent
from shared.progress import STAGE_START

SSE_EVENT_NAME = "progress"
TERMINAL_STATUSES = frozenset({"ready", "failed"})


def event_id(event: ProgressEvent) -> str:
    finished = int(is_terminal(event))
    position = f"{event.progress:03d}:{event.processed_chunks:06d}:{finished}"
    return f"{event.file_id}:{position}:{event.status}"


def to_sse(event: ProgressEvent) -> ServerSentEvent:
    return ServerSentEvent(data=event.model_dump_json(), event=SSE_EVENT_NAME, id=event_id(event))


def is_terminal(event: ProgressEvent) -> bool:
    return event.status in TERMINAL_STATUSES


def progress_key(event: ProgressEvent) -> tuple[int, int, int]:
    """Order of states within an attempt; a finished state beats a running one at equal progress."""
    return (event.progress, event.processed_chunks, int(is_terminal(event)))


def starts_new_attempt(previous: ProgressEvent, event: ProgressEvent) -> bool:
    """A retried failed file starts over at the upload state; nothing else may move back.

    The gateway announces the upload state before the extractor can see the file, so no event
    of an earlier attempt carries that state after the failure.
    """
    return (
        previous.status == "failed"
        and event.status == "processing"
        and event.progress <= STAGE_START["extracting"]
    )


class ProgressFilter:
    """Per file, pass only events that move forward: workers' events can arrive out of order."""

    def __init__(self) -> None:
        self._last: dict[UUID, ProgressEvent] = {}

    def accept(self, event: ProgressEvent) -> bool:
        previous = self._last.get(event.file_id)
        if (
            previous is None
            or progress_key(event) > progress_key(previous)
            or starts_new_attempt(previous, event)
        ):
            self._last[event.file_id] = event
            return True
        return False

    def forget(self, file_id: UUID) -> None:
        self._last.pop(file_id, None)

    def unfinished(self) -> set[UUID]:
        """Files whose last state sent was still processing."""
        return {file_id for file_id, last in self._last.items() if not is_terminal(last)}
