"""Imported turns get deterministic ids: a re-import stores nothing twice, and two different
turns never share an id (untimed ones are told apart by their place in the request)."""

import uuid
from datetime import UTC, datetime

from services.gateway.conversations.turn_import import new_turns
from services.gateway.conversations.turn_schemas import ImportTurn

USER = uuid.uuid4()


def ids(turns: list[ImportTurn]) -> list[uuid.UUID]:
    return [turn.id for turn in new_turns(USER, turns)]


def test_two_untimed_identical_turns_are_two_turns_and_a_reimport_is_the_same_two() -> None:
    turns = [ImportTurn(persona="vlad", user_message="ok", ai_response="ok")] * 2
    first = ids(turns)
    assert len(set(first)) == 2
    assert ids(turns) == first


def test_untimed_turns_differing_only_in_the_answer_are_two_turns() -> None:
    turns = [
        ImportTurn(persona="vlad", user_message="ok", ai_response=answer) for answer in ("a", "b")
    ]
    assert ids(turns[:1]) != ids(turns[1:])


def test_a_timed_turn_has_the_same_id_wherever_it_sits_in_the_request() -> None:
    moment = datetime(2025, 3, 1, 9, tzinfo=UTC)
    turn = ImportTurn(persona="vlad", user_message="ok", ai_response="ok", created_at=moment)
    other = ImportTurn(persona="kirby", user_message="hi", ai_response="hi", created_at=moment)
    assert ids([turn])[0] == ids([other, turn])[1]
