"""`artisan up --chunkers N --compressors M` runs that many of each (the processes themselves:
tests/integration/test_fault_kills.py runs two of each), and its banner says so; unless told,
the chunkers, embedders and the embedding model's threads follow the cores."""

import pytest

from shared.cli.main import build_parser
from shared.cli.system import _banner
from shared.launcher.sizing import Sizing, size_for


def test_up_takes_how_many_chunkers_and_compressors_to_run() -> None:
    args = build_parser().parse_args(["up", "--chunkers", "2", "--compressors", "3"])
    assert (args.chunkers, args.compressors) == (2, 3)
    assert build_parser().parse_args(["up", "--embedders", "2"]).embedders == 2
    assert build_parser().parse_args(["up"]).chunkers is None  # sized from the cores
    with pytest.raises(SystemExit):
        build_parser().parse_args(["up", "--chunkers", "0"])


def test_the_banner_counts_the_scaled_services() -> None:
    banner = _banner("http://x", "key", {"compressor": 1, "chunker": 2}, "")
    services = next(line for line in banner.splitlines() if "services:" in line)
    assert "2× chunker" in services and "1× compressor" in services
    assert "gateway" in services and "× gateway" not in services


@pytest.mark.parametrize(
    ("cores", "sized"),
    [
        (1, Sizing(1, chunkers=1, embedders=1, embed_threads=1)),
        (2, Sizing(2, chunkers=1, embedders=1, embed_threads=1)),
        (4, Sizing(4, chunkers=2, embedders=1, embed_threads=1)),
        (16, Sizing(16, chunkers=8, embedders=4, embed_threads=1)),
    ],
)
def test_processes_and_threads_follow_the_cores(cores: int, sized: Sizing) -> None:
    assert size_for(cores) == sized
    # never more model threads than cores, across the processes that embed
    assert (sized.chunkers + sized.embedders) * sized.embed_threads <= max(cores, 2)


def test_what_the_user_sets_is_kept_and_the_threads_share_the_rest() -> None:
    assert size_for(8, chunkers=1, embedders=1) == Sizing(8, 1, 1, embed_threads=4)
    assert size_for(8, embed_threads=3).embed_threads == 3
    assert "sized for 2 cores: 1× chunker, 1× embedder, 1 embedding thread each" in (
        size_for(2).describe()
    )
