"""Dead letters name a file or a turn: the stored event decides which one fails."""

import uuid

import pytest
from pydantic import ValidationError

from shared.contracts import FileEvent, TurnCompleted, TurnEvent
from shared.dead_letters import _event_of


def test_a_turn_event_is_read_as_a_turn() -> None:
    turn = TurnCompleted(turn_id=uuid.uuid4(), user_id=uuid.uuid4(), attempt=2)
    event = _event_of(turn.model_dump(mode="json"))
    assert isinstance(event, TurnEvent) and event.turn_id == turn.turn_id


def test_a_file_or_chunk_event_is_read_as_a_file() -> None:
    data = {"file_id": str(uuid.uuid4()), "user_id": str(uuid.uuid4()), "chunk_index": 3}
    event = _event_of(data)
    assert isinstance(event, FileEvent) and str(event.file_id) == data["file_id"]


@pytest.mark.parametrize("data", [{}, {"turn_id": "x", "user_id": "y"}, {"chunk_id": "z"}])
def test_anything_else_is_refused(data: dict) -> None:
    with pytest.raises(ValidationError):
        _event_of(data)
