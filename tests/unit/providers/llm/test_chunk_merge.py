"""The chunk merge: whatever spans a model proposes, the text is tiled exactly once, in order."""

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import ChunkSpan
from shared.providers.llm.chunk_merge import merge_spans
from shared.providers.llm.chunk_windows import owned_spans, window_bounds
from shared.text.boundaries import BoundaryLevel, boundary_level, snap_boundary

_TEXT = st.one_of(
    st.text(alphabet="ab .!?\n\t", min_size=1, max_size=400),  # dense in snapping points
    st.text(min_size=1, max_size=300),  # any unicode
)
_ANY_INT = st.integers(min_value=-(10**12), max_value=10**12)


def _assert_tiles(text: str, spans: list[ChunkSpan]) -> None:
    assert spans, "a non-empty text has chunks"
    assert spans[0].start == 0 and spans[-1].end == len(text)
    for first, second in pairwise(spans):
        assert first.end == second.start
    assert all(span.start < span.end for span in spans)
    assert "".join(text[span.start : span.end] for span in spans) == text
    assert all(span.title for span in spans)


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, list[ChunkSpan], int, int]:
    text = draw(_TEXT)
    near = st.integers(min_value=-20, max_value=len(text) + 20)
    offset = st.one_of(near, near, _ANY_INT)  # mostly plausible offsets, some wild ones
    pairs = draw(st.lists(st.tuples(offset, offset), max_size=12))
    proposals = [ChunkSpan(start, end, f"t{i}") for i, (start, end) in enumerate(pairs)]
    radius = draw(st.sampled_from([0, 3, 20, 60, 200]))  # 200 is the default
    return text, proposals, radius, draw(st.sampled_from([0, 10, 80, 2_000]))


@settings(max_examples=400, deadline=None)
@given(_case())
def test_any_proposals_tile_the_text_exactly_once(case: tuple) -> None:
    text, proposals, radius, max_gap = case
    _assert_tiles(text, merge_spans(text, proposals, snap_radius=radius, max_joined_gap=max_gap))


@settings(max_examples=400, deadline=None)
@given(_case())
def test_boundaries_are_proposed_points_or_snapped_near_one(case: tuple) -> None:
    text, proposals, radius, max_gap = case
    spans = merge_spans(text, proposals, snap_radius=radius, max_joined_gap=max_gap)
    proposed = {min(max(point, 0), len(text)) for p in proposals for point in (p.start, p.end)}
    for span in spans[1:]:
        boundary = span.start
        if boundary in proposed:
            continue
        assert boundary_level(text, boundary) > BoundaryLevel.NONE
        assert min(abs(boundary - point) for point in proposed) <= radius


def test_no_proposals_give_one_chunk_titled_by_its_first_words() -> None:
    text = "## Notes\nThe first line of the notes.\nMore."
    assert merge_spans(text, []) == [ChunkSpan(0, len(text), "Notes")]
    assert merge_spans("", [ChunkSpan(0, 5, "x")]) == []


def test_good_proposals_stay_as_they_are_with_their_titles() -> None:
    text = "Intro line.\n\nBOSS: a question?\n\nEXPERT 1: an answer.\n"
    starts = [0, text.index("BOSS"), text.index("EXPERT")]
    proposals = [
        ChunkSpan(start, end, f"title {i}", f"summary {i}")
        for i, (start, end) in enumerate(pairwise([*starts, len(text)]))
    ]
    merged = merge_spans(text, proposals)
    assert merged == proposals
    assert [span.summary for span in merged] == ["summary 0", "summary 1", "summary 2"]


def test_overlaps_duplicates_and_disorder_are_resolved_in_text_order() -> None:
    text = "".join(f"Paragraph {n} says something.\n\n" for n in range(6))
    line = [i + 1 for i, char in enumerate(text) if char == "\n" and text[i - 1] == "\n"]
    proposals = [
        ChunkSpan(line[2], len(text) + 500, "C"),
        ChunkSpan(0, line[1] + 5, "A"),  # overlaps B by 5 characters
        ChunkSpan(line[1], line[2], "B"),
        ChunkSpan(line[1], line[2], "B again"),
        ChunkSpan(line[3], line[0], "reversed"),
    ]
    merged = merge_spans(text, proposals)
    _assert_tiles(text, merged)
    # A's 5 extra characters snap back to the paragraph start; B lies inside "reversed"
    assert [(span.start, span.title) for span in merged] == [
        (0, "A"),
        (line[1], "reversed"),
        (line[3], "C"),
    ]


def test_a_short_gap_joins_the_previous_chunk_and_a_long_one_stands_alone() -> None:
    text = "word " * 400  # 2,000 characters, no line breaks
    short = merge_spans(text, [ChunkSpan(0, 500, "A"), ChunkSpan(600, 2000, "B")], snap_radius=0)
    assert [(s.start, s.end, s.title) for s in short] == [(0, 600, "A"), (600, 2000, "B")]
    long = merge_spans(
        text, [ChunkSpan(0, 500, "A"), ChunkSpan(1500, 2000, "B")], max_joined_gap=100
    )
    assert [(s.start, s.end) for s in long] == [(0, 500), (500, 1500), (1500, 2000)]
    assert long[1].title.startswith("word word") and long[1].title.endswith("…")


def test_a_gap_at_the_start_joins_the_first_chunk() -> None:
    text = "x" * 300
    merged = merge_spans(text, [ChunkSpan(40, 300, "A")])
    assert [(s.start, s.end, s.title) for s in merged] == [(0, 300, "A")]


def test_snapping_prefers_a_paragraph_then_a_line_then_a_sentence() -> None:
    text = "One sentence. Two sentence.\nA new line here.\n\nA new paragraph starts."
    paragraph = text.index("A new paragraph")
    line = text.index("A new line")
    sentence = text.index("Two")
    assert snap_boundary(text, paragraph - 10, 0, len(text), radius=40) == paragraph
    assert snap_boundary(text, line + 3, 0, len(text), radius=10) == line
    assert snap_boundary(text, sentence + 2, 0, len(text), radius=5) == sentence
    assert snap_boundary(text, line, 0, len(text), radius=40) == line  # a line start stays
    assert snap_boundary(text, 20, 0, len(text), radius=2) == 20  # nothing in reach: stays
    assert snap_boundary(text, paragraph - 10, 0, paragraph, radius=40) != paragraph


def test_window_bounds_follow_seed_000() -> None:
    assert window_bounds(65_000) == [
        (0, 20_000),
        (17_000, 37_000),
        (34_000, 54_000),
        (51_000, 65_000),
    ]
    assert window_bounds(12_000) == [(0, 12_000)]
    assert window_bounds(20_000) == [(0, 20_000)]
    assert window_bounds(0) == []


@given(st.integers(1, 200_000), st.integers(2, 30_000), st.data())
def test_windows_cover_the_text_with_the_overlap(
    length: int, window: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, window - 1))
    bounds = window_bounds(length, window, overlap)
    assert bounds[0][0] == 0 and bounds[-1][1] == length
    for (start, end), (next_start, _) in pairwise(bounds):
        assert end - start == window and next_start == end - overlap


def test_each_chunk_end_is_decided_by_one_window() -> None:
    bounds = [(0, 20_000), (17_000, 37_000)]
    first = [
        ChunkSpan(0, 10_000, "a"),
        ChunkSpan(10_000, 18_400, "b"),
        ChunkSpan(18_400, 20_000, "tail"),
    ]
    second = [
        ChunkSpan(17_000, 18_000, "seen before"),
        ChunkSpan(18_000, 19_000, "c"),
        ChunkSpan(19_000, 37_000, "d"),
    ]
    kept = owned_spans(bounds, [first, second], tail=1_500)
    assert [span.title for span in kept] == ["a", "b", "c", "d"]


def test_a_windows_cut_off_start_extends_back_to_the_covered_text() -> None:
    bounds = [(0, 20_000), (17_000, 37_000)]
    first = [ChunkSpan(0, 16_000, "a"), ChunkSpan(16_000, 20_000, "dropped")]
    second = [ChunkSpan(17_000, 19_000, "b"), ChunkSpan(19_000, 37_000, "c")]
    kept = owned_spans(bounds, [first, second], tail=1_500)
    assert [(span.start, span.end) for span in kept] == [
        (0, 16_000),
        (16_000, 19_000),
        (19_000, 37_000),
    ]
