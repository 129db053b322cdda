"""Line numbers of chunk spans: 1-based, inclusive, and counted in one pass over the text."""

from itertools import pairwise

import pytest

from shared.domain import ChunkSpan
from shared.text.spans import line_range, line_ranges
from tests.unit.text.linear_time import assert_linear


def test_line_range_is_one_based_and_inclusive() -> None:
    text = "alpha\nbeta\ngamma\n"
    assert line_range(text, 0, 5) == (1, 1)
    assert line_range(text, 0, 6) == (1, 1)  # the newline ending line 1 is on line 1
    assert line_range(text, 0, 7) == (1, 2)
    assert line_range(text, 6, len(text)) == (2, 3)
    assert line_range(text, 11, 11) == (3, 3)
    with pytest.raises(ValueError):
        line_range(text, 3, 100)


def test_line_ranges_are_each_spans_line_range() -> None:
    text = "alpha\nbeta\n\ngamma\ndelta epsilon\n\n\nzeta"
    cuts = [0, 3, 6, 7, 12, 13, 20, 33, 35, len(text)]
    spans = [ChunkSpan(a, b, "t") for a, b in pairwise(cuts)]
    assert line_ranges(text, spans) == [line_range(text, s.start, s.end) for s in spans]


def test_line_ranges_take_linear_time() -> None:
    def spans_of(text: str) -> list[ChunkSpan]:
        return [ChunkSpan(a, min(a + 20, len(text)), "t") for a in range(0, len(text), 20)]

    assert_linear(lambda text: line_ranges(text, spans_of(text)), lambda n: "a line\n" * n, 40_000)
