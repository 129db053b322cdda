"""`artisan up --chunkers N --compressors M` runs that many of each (the processes themselves:
tests/integration/test_fault_kills.py runs two of each), and its banner says so; unless told,
the chunkers, embedders and the embedding model's threads follow the cores."""

import pytest

from shared.cli.main import build_parser
from shared.cli.system import _banner
from shared.launcher.sizing import Sizing, size_for
from shared.launcher.supervisor import Supervisor


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
        (1, Sizing(1, chunkers=1, embedders=1, chunker_threads=1, embedder_threads=1)),
        (2, Sizing(2, chunkers=2, embedders=1, chunker_threads=1, embedder_threads=2)),
        (8, Sizing(8, chunkers=8, embedders=2, chunker_threads=1, embedder_threads=4)),
    ],
)
def test_a_chunker_per_core_and_the_embedders_share_the_cores(cores: int, sized: Sizing) -> None:
    assert size_for(cores) == sized
    assert sized.service_env() == {
        "chunker": {"ARTISAN_EMBED_THREADS": "1"},
        "embedder": {"ARTISAN_EMBED_THREADS": str(sized.embedder_threads)},
    }


def test_what_the_user_sets_is_kept() -> None:
    assert size_for(8, chunkers=3, embedders=1) == Sizing(8, 3, 1, 1, embedder_threads=8)
    assert size_for(8, embed_threads=3) == Sizing(8, 8, 2, 3, 3)
    assert size_for(2).describe() == (
        "sized for 2 cores: 2× chunker (1 model thread each), 1× embedder (2 threads each)"
    )


def test_each_service_gets_its_own_thread_count_and_no_other_does() -> None:
    supervisor = Supervisor({"ARTISAN_X": "1"}, service_env=size_for(2).service_env())
    assert supervisor._env_of("chunker", 2)["ARTISAN_EMBED_THREADS"] == "1"
    assert supervisor._env_of("embedder", 1)["ARTISAN_EMBED_THREADS"] == "2"
    gateway = supervisor._env_of("gateway", 1)
    assert gateway["ARTISAN_X"] == "1" and "ARTISAN_EMBED_THREADS" not in gateway
