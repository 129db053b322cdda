"""A language model that reads, for the quality benchmarks: `--model FILE.gguf` (or `smollm2`)
serves the file with the embedded llama.cpp server, as `artisan up --model` does (answers by the
model, ingestion by the offline rules), and the report says which model it was — its GGUF name,
size and sha256, read from the file itself — and how fast it ran here.

A model from a package nobody here can vouch for is used in benchmarks only, never as a
dependency: check the sha256 the report gives against the one its publisher states."""

import argparse
import asyncio
import hashlib
import json
import re
import struct
from collections.abc import Coroutine
from typing import Any, BinaryIO

import httpx

from shared.launcher.embedded_model import model_path
from shared.launcher.stack import Stack

_GGUF_STRING = 8
_GGUF_ARRAY = 9
_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q"}
_GGUF_SCALARS |= {11: "q", 12: "d"}
_SPEEDS = re.compile(r"^(artisan_model_\w+_per_second) ([0-9.eE+-]+)$", re.MULTILINE)


def add_model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default="",
        help="a GGUF file (or `smollm2`) that writes the answers; default: the offline rules",
    )


def describe(name: str) -> dict[str, Any]:
    """What the model is, from its file: its GGUF name and size label, bytes and sha256."""
    if not name:
        return {"model": "offline rules"}
    path = model_path(name)
    with path.open("rb") as gguf:
        metadata = gguf_metadata(gguf)
    digest = hashlib.sha256()
    with path.open("rb") as gguf:
        while block := gguf.read(1 << 20):
            digest.update(block)
    return {
        "model": metadata.get("general.name", path.name),
        "size_label": metadata.get("general.size_label"),
        "file": path.name,
        "bytes": path.stat().st_size,
        "sha256": digest.hexdigest(),
    }


def gguf_metadata(gguf: BinaryIO) -> dict[str, Any]:
    """A GGUF file's key-value header (version 2 or 3): its scalar and string values."""
    if gguf.read(4) != b"GGUF":
        raise ValueError("not a GGUF file")
    _version, _tensors, count = struct.unpack("<IQQ", gguf.read(20))
    found: dict[str, Any] = {}
    for _ in range(count):
        key = _string(gguf)
        (kind,) = struct.unpack("<I", gguf.read(4))
        value = _value(gguf, kind)
        if not isinstance(value, list):
            found[key] = value
    return found


def _string(gguf: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", gguf.read(8))
    return gguf.read(length).decode("utf-8", "replace")


def _value(gguf: BinaryIO, kind: int) -> Any:
    if kind == _GGUF_STRING:
        return _string(gguf)
    if kind == _GGUF_ARRAY:
        item_kind, length = struct.unpack("<IQ", gguf.read(12))
        return [_value(gguf, item_kind) for _ in range(length)]
    layout = "<" + _GGUF_SCALARS[kind]
    return struct.unpack(layout, gguf.read(struct.calcsize(layout)))[0]


def run(stack: Stack, evaluation: Coroutine[Any, Any, dict[str, Any]], model: str) -> None:
    """Print the evaluation's figures with the model that wrote the answers and its speed."""
    print(json.dumps({**describe(model), **asyncio.run(_with_speeds(stack, evaluation))}, indent=1))


async def _with_speeds(
    stack: Stack, evaluation: Coroutine[Any, Any, dict[str, Any]]
) -> dict[str, Any]:
    figures = await evaluation
    return {**figures, "speeds": await speeds(stack)}


async def speeds(stack: Stack) -> dict[str, float]:
    """The model server's tokens/s over the run, as the gateway's /metrics gives them."""
    async with httpx.AsyncClient(timeout=10) as client:
        text = (await client.get(f"{stack.gateway_url}/metrics")).text
    return {name: round(float(value), 1) for name, value in _SPEEDS.findall(text)}
