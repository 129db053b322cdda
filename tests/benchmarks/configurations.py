"""The configurations the pipeline benchmarks compare, the one a new user runs first: the
quickstart's (MiniLM, sized as `artisan up` sizes itself on this machine), then the hashed-word
embedder with the same processes (the offline embedder every earlier figure was measured on)."""

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shared.config import model_settings
from shared.launcher.sizing import Sizing, available_cpus, size_for
from shared.launcher.stack import Stack
from shared.providers import registry
from tests.helpers import own_stack


@dataclass(frozen=True)
class Configuration:
    name: str
    embedder: str  # ARTISAN_EMBED_PROVIDER

    def describe(self, sizing: Sizing, compressors: int) -> str:
        processes = f"{compressors}× compressor, {sizing.describe()}"
        return f"{self.name} (embedder {self.embedder}; {processes})"


QUICKSTART = Configuration("quickstart", "minilm")
HASHED = Configuration("hashed", "local")
CONFIGURATIONS = {c.name: c for c in (QUICKSTART, HASHED)}


def add_configuration_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        nargs="+",
        choices=list(CONFIGURATIONS),
        default=list(CONFIGURATIONS),
        help="what to run, in order (default: the quickstart's, then the hashed embedder's)",
    )
    parser.add_argument("--compressors", type=int, default=1, help="`artisan up`'s default: 1")
    parser.add_argument("--chunkers", type=int, default=None, help="default: as `artisan up`")
    parser.add_argument("--embedders", type=int, default=None, help="default: as `artisan up`")
    parser.add_argument("--env", nargs="*", default=[], help="K=V for every service")


def chosen(args: argparse.Namespace) -> list[Configuration]:
    return [CONFIGURATIONS[name] for name in args.config]


def sizing_of(args: argparse.Namespace) -> Sizing:
    return size_for(available_cpus(), chunkers=args.chunkers, embedders=args.embedders)


def environment(config: Configuration, args: argparse.Namespace, **extra: str) -> dict[str, str]:
    """The services' environment (also this process's, for an in-process floor)."""
    return {
        "ARTISAN_EMBED_PROVIDER": config.embedder,
        **extra,
        **dict(item.split("=", 1) for item in args.env),
    }


def use_in_this_process(config: Configuration, args: argparse.Namespace, **extra: str) -> None:
    """This process's models become the configuration's (an in-process floor, or the questions
    a benchmark embeds itself), as the services' are; it has every core."""
    os.environ.update(environment(config, args, **extra))
    model_settings.cache_clear()
    registry.forget_providers()


@contextmanager
def stack_for(
    config: Configuration, args: argparse.Namespace, data_dir: Path, **extra: str
) -> Iterator[Stack]:
    sizing = sizing_of(args)
    print(f"\n== {config.describe(sizing, args.compressors)}", flush=True)
    with own_stack(
        data_dir,
        env=environment(config, args, **extra),
        compressors=args.compressors,
        chunkers=sizing.chunkers,
        embedders=sizing.embedders,
        service_env=sizing.service_env(),
    ) as stack:
        yield stack
