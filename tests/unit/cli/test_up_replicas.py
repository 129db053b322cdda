"""`artisan up --chunkers N --compressors M` runs that many of each (the processes themselves:
tests/integration/test_fault_kills.py runs two of each), and its banner says so."""

import pytest

from shared.cli.main import build_parser
from shared.cli.system import _banner


def test_up_takes_how_many_chunkers_and_compressors_to_run() -> None:
    args = build_parser().parse_args(["up", "--chunkers", "2", "--compressors", "3"])
    assert (args.chunkers, args.compressors) == (2, 3)
    assert build_parser().parse_args(["up"]).chunkers == 1
    with pytest.raises(SystemExit):
        build_parser().parse_args(["up", "--chunkers", "0"])


def test_the_banner_counts_the_scaled_services() -> None:
    banner = _banner("http://x", "key", {"compressor": 1, "chunker": 2}, "")
    services = next(line for line in banner.splitlines() if "services:" in line)
    assert "2× chunker" in services and "1× compressor" in services
    assert "gateway" in services and "× gateway" not in services
