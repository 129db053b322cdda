"""Chunk-span geometry for any chunker: sliding windows and a merge that tiles the text."""

from shared.chunking.merge import MAX_JOINED_GAP, SNAP_RADIUS, first_words, merge_spans
from shared.chunking.snapping import BoundaryLevel, boundary_level, snap_boundary
from shared.chunking.windows import owned_spans, shifted, window_bounds

__all__ = [
    "MAX_JOINED_GAP",
    "SNAP_RADIUS",
    "BoundaryLevel",
    "boundary_level",
    "first_words",
    "merge_spans",
    "owned_spans",
    "shifted",
    "snap_boundary",
    "window_bounds",
]
