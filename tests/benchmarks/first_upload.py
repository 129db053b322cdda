"""A new user's first upload: six Wikipedia articles (CMU QA S08, set 1, a1-a6; 17 to
69 kB each, 217 kB in all) sent in one request to a fresh system, timed until every one is ready.

Each run is a new user (the same content is new to them), on the same system; the median run is
reported for each configuration (configurations.py: the quickstart's first).

Run:  .venv/bin/python -m tests.benchmarks.first_upload [--runs 3] [--config quickstart hashed]
"""

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from shared.launcher.stack import Stack
from tests.benchmarks.cmuqa import DATA, article_text
from tests.benchmarks.configurations import add_configuration_arguments, chosen, stack_for
from tests.helpers import client_for_new_user, follow_until_settled

ARTICLES = 6


def first_articles() -> list[tuple[str, bytes]]:
    paths = sorted((DATA / "articles" / "data" / "set1").glob("a*.txt.clean"))
    paths = sorted(paths, key=lambda p: int(p.name.split(".")[0][1:]))[:ARTICLES]
    return [(f"{p.name.split('.')[0]}.txt", article_text(p).encode()) for p in paths]


async def upload_to_ready(stack: Stack, articles: list[tuple[str, bytes]]) -> float:
    async with await client_for_new_user(stack, "first-upload") as client:
        started = time.monotonic()
        parts = [("files", (name, data, "text/plain")) for name, data in articles]
        response = await client.post("/v1/files", files=parts, timeout=120)
        response.raise_for_status()
        ids = [record["id"] for record in response.json()["items"]]
        await asyncio.gather(*(follow_until_settled(client, file_id) for file_id in ids))
        elapsed = time.monotonic() - started
        statuses = {(await client.get(f"/v1/files/{i}")).json()["status"] for i in ids}
        assert statuses == {"ready"}, statuses
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    add_configuration_arguments(parser)
    args = parser.parse_args()
    articles = first_articles()
    size = sum(len(data) for _, data in articles)
    for config in chosen(args):
        with (
            tempfile.TemporaryDirectory() as data_dir,
            stack_for(config, args, Path(data_dir)) as stack,
        ):
            timings = [asyncio.run(upload_to_ready(stack, articles)) for _ in range(args.runs)]
        print(
            f"{len(articles)} articles ({size:,} bytes) upload → all ready: median"
            f" {statistics.median(timings):.1f} s (runs: {', '.join(f'{t:.1f}' for t in timings)})",
            flush=True,
        )


if __name__ == "__main__":
    main()
