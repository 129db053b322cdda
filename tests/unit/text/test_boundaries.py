"""Boundary levels: one ranking for both chunkers, and the level of a cut inside a text."""

from shared.text.boundaries import BoundaryLevel, boundary_level


def test_levels_rank_cuts_from_any_character_up_to_the_start_of_the_text() -> None:
    ranking = ["NONE", "CHAR", "WORD", "SENTENCE", "LINE", "PARAGRAPH", "SPEAKER", "HEADING"]
    assert [level.name for level in BoundaryLevel] == [*ranking, "START"]
    # the local chunker steps down one level at a time
    assert [int(level) for level in BoundaryLevel] == list(range(len(BoundaryLevel)))


def test_a_sentence_start_is_one_after_spaces_on_the_same_line() -> None:
    text = "Intro.\n\nOne. Two.\nThree. 四。五"
    level = {word: boundary_level(text, text.index(word)) for word in ("One", "Two", "Three")}
    assert level == {
        "One": BoundaryLevel.PARAGRAPH,
        "Two": BoundaryLevel.SENTENCE,
        "Three": BoundaryLevel.LINE,
    }
    assert boundary_level(text, text.index("五")) == BoundaryLevel.SENTENCE
    assert boundary_level(text, text.index("wo")) == BoundaryLevel.NONE
    assert boundary_level(text, 0) == boundary_level(text, len(text)) == BoundaryLevel.NONE
