"""Hostile uploads through the extractor's child process: how long each takes to end (as text, or
as a refusal) at 1, 5 and 10 MB, with the service's default limits.

Run:  .venv/bin/python -m tests.benchmarks.hostile_inputs [--sizes 1 5 10] [--inputs NAME ...]

The builders are shared with tests/integration/test_hostile_uploads.py and the unit tests.
"""

import argparse
import asyncio
import io
import statistics
import struct
import time
import zipfile
from collections.abc import Callable

from docx import Document
from pypdf import PdfReader, PdfWriter

from services.extractor.child import extract_in_child
from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text
from shared.config import ExtractionSettings
from tests.fixtures import documents

MB = 1024 * 1024
_CUE = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"


def repeated(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], bytes]:
    """A builder of `prefix + unit * n + suffix`, n chosen to fill about `size` bytes."""

    def make(size: int) -> bytes:
        count = max(1, (size - len(prefix) - len(suffix)) // len(unit))
        return (prefix + unit * count + suffix).encode()

    return make


def misnested_formatting(size: int) -> bytes:
    """<b><i> pairs closed in the wrong order: cubic for an HTML5 tree builder."""
    pairs = size // 30
    return ("".join(f"<b {i}><i {i}>" for i in range(pairs)) + "x</b>" * pairs).encode()[:size]


def nested_list_text(size: int) -> bytes:
    """Markdown list items indented one level deeper each line, up to 1,000 levels."""
    lines, total, depth = [], 0, 0
    while True:
        line = "  " * (depth % 1000) + f"- item {depth}\n"
        if total + len(line) > size:
            return "".join(lines).encode()
        lines.append(line)
        total += len(line)
        depth += 1


def zip_bomb_docx(size: int, unpacked: int = 1024 * MB) -> bytes:
    """A valid .docx whose document.xml is `unpacked` bytes (mostly spaces, ~1 MB packed), padded
    to about `size` bytes with an incompressible picture."""
    template = io.BytesIO()
    Document().save(template)
    source = zipfile.ZipFile(template)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as bomb:
        for part in source.infolist():
            if part.filename != "word/document.xml":
                bomb.writestr(part, source.read(part))
        with bomb.open("word/document.xml", "w", force_zip64=True) as document:
            spaces = b" " * MB
            for _ in range(unpacked // MB):
                document.write(spaces)
        padding = size - out.tell() - 2048  # room for the headers and the directory
        if padding > 0:
            bomb.writestr("word/media/image1.bin", _incompressible(padding), zipfile.ZIP_STORED)
    return out.getvalue()


def understated_sizes(size: int, unpacked: int = 1536 * MB) -> bytes:
    """A zip bomb .docx whose document.xml tells the zip's directory it is 1,000 bytes."""
    out = bytearray(zip_bomb_docx(size, unpacked))
    position = zipfile.ZipFile(io.BytesIO(out)).start_dir
    while out[position : position + 4] == b"PK\x01\x02":  # the central directory's entries
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", out, position + 28)
        if out[position + 46 : position + 46 + name_length] == b"word/document.xml":
            struct.pack_into("<I", out, position + 24, 1000)  # under 4 GiB: no zip64 field
        position += 46 + name_length + extra_length + comment_length
    return bytes(out)


def _incompressible(size: int) -> bytes:
    state, out = 0x2545F491, bytearray()
    while len(out) < size:  # xorshift: random enough for deflate, the same on every run
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out += state.to_bytes(4, "little")
    return bytes(out[:size])


def pdf_many_pages(size: int) -> bytes:
    """More pages than the cap: blank pages of ~130 bytes each, written by pypdf."""
    writer = PdfWriter()
    for _ in range(max(1, size // 130)):
        writer.add_blank_page(612, 792)
    return _written(writer)


def pdf_slow_pages(size: int, pages: int = 1_000) -> bytes:
    """Under the page cap, but each page draws the same long text (~`size` bytes, one content
    stream): a second or more to read each page, so minutes for them all."""
    lines = max(100, (size - 200 * pages) // 72)
    text = documents.pdf(["The same words drawn on every page."] * lines)
    page = PdfReader(io.BytesIO(text)).pages[0]
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_page(page)
    return _written(writer)


def _written(writer: PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# name → (filename, builder of about `size` bytes)
HOSTILE_INPUTS: dict[str, tuple[str, Callable[[int], bytes]]] = {
    "vtt-voice-tags": ("call.vtt", repeated("<v a")),
    "vtt-voice-tags-in-one-cue": ("cue.vtt", repeated("<v a", prefix=_CUE)),
    "html-unclosed-tags": ("tags.html", repeated("<a ")),
    "html-angle-brackets": ("angles.html", repeated("<")),
    "html-deep-nesting": ("deep.html", repeated("<div>", suffix="x")),
    "html-misnested-formatting": ("misnested.html", misnested_formatting),
    "text-one-giant-line": ("line.txt", repeated("word ")),
    "text-nested-list": ("nested.md", nested_list_text),
    "docx-zip-bomb": ("bomb.docx", zip_bomb_docx),
    "docx-understated-sizes": ("liar.docx", understated_sizes),
    "pdf-many-pages": ("pages.pdf", pdf_many_pages),
    "pdf-slow-pages": ("slow.pdf", pdf_slow_pages),
}


async def timed_extraction(data: bytes, filename: str, limits: ExtractionSettings) -> list[str]:
    """[outcome, seconds] of one extraction in a child process."""
    started = time.perf_counter()
    try:
        outcome = f"text, {len(await extract_in_child(data, filename, limits)):,} chars"
    except ExtractionError as error:
        outcome = f"failed: {str(error)[:70]}"
    return [outcome, f"{time.perf_counter() - started:.2f}"]


async def child_overhead(limits: ExtractionSettings, runs: int = 20) -> tuple[float, float]:
    """Median seconds of a one-word file read in a child process, and in this process."""
    await extract_in_child(b"warm", "warm.txt", limits)  # starts the fork server
    in_child, in_process = [], []
    for _ in range(runs):
        started = time.perf_counter()
        await extract_in_child(b"word", "word.txt", limits)
        in_child.append(time.perf_counter() - started)
        started = time.perf_counter()
        extract_text(b"word", "word.txt", limits)
        in_process.append(time.perf_counter() - started)
    return statistics.median(in_child), statistics.median(in_process)


async def run(names: list[str], sizes_mb: list[int]) -> list[list[str]]:
    limits = ExtractionSettings()
    child, in_process = await child_overhead(limits)
    print(f"one word: {child * 1000:.1f} ms in a child, {in_process * 1000:.2f} ms in process")
    rows = []
    for name in names:
        filename, make = HOSTILE_INPUTS[name]
        for size_mb in sizes_mb:
            data = make(size_mb * MB)
            result = await timed_extraction(data, filename, limits)
            rows.append([name, f"{len(data) / MB:.1f}", *result])
            print(" | ".join(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 5, 10], help="MB")
    parser.add_argument("--inputs", nargs="+", default=list(HOSTILE_INPUTS), help="names")
    args = parser.parse_args()
    limits = ExtractionSettings()
    print(
        f"limits: {limits.extract_timeout_seconds:g} s, {limits.extract_memory_mb} MB, "
        f"{limits.extract_max_pdf_pages} PDF pages, {limits.extract_max_text_chars:,} characters"
    )
    rows = asyncio.run(run(args.inputs, args.sizes))
    print("\n| input | MB | outcome | seconds |\n|---|---|---|---|")
    for row in rows:
        print(f"| {' | '.join(row)} |")


if __name__ == "__main__":
    main()
