"""The text/event-stream parser the upload command reads progress with."""

from shared.cli.sse import ServerSentEvent, SseParser


def feed_all(parser: SseParser, text: str) -> list[ServerSentEvent]:
    events = [parser.feed(line) for line in text.split("\n")]
    return [event for event in events if event is not None]


def test_an_event_is_complete_at_the_blank_line() -> None:
    parser = SseParser()
    assert parser.feed("event: progress") is None
    assert parser.feed('data: {"progress": 60}') is None
    assert parser.feed("") == ServerSentEvent(event="progress", data='{"progress": 60}')


def test_data_lines_join_with_newlines_and_one_leading_space_is_dropped() -> None:
    events = feed_all(SseParser(), "data: first\ndata:second\ndata:  indented\n\n")
    assert events == [ServerSentEvent(data="first\nsecond\n indented")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    events = feed_all(SseParser(), ": ping\nretry: 1000\nfoo: bar\ndata: x\n\n")
    assert events == [ServerSentEvent(data="x")]


def test_an_event_without_data_is_dropped() -> None:
    assert feed_all(SseParser(), "event: progress\n\n: ping\n\n") == []


def test_the_event_type_resets_after_each_event() -> None:
    events = feed_all(SseParser(), "event: progress\ndata: a\n\ndata: b\n\n")
    assert [e.event for e in events] == ["progress", "message"]


def test_the_last_event_id_carries_over_for_reconnection() -> None:
    parser = SseParser()
    events = feed_all(parser, "id: 7\ndata: a\n\ndata: b\n\n")
    assert [e.id for e in events] == ["7", "7"]
    assert parser.last_event_id == "7"
    assert SseParser("7").last_event_id == "7"


def test_a_field_name_alone_has_an_empty_value() -> None:
    assert feed_all(SseParser(), "data\n\n") == [ServerSentEvent(data="")]


def test_an_id_with_a_null_character_is_ignored() -> None:
    parser = SseParser()
    feed_all(parser, "id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n")
    assert parser.last_event_id == "1"
