"""Every service's /metrics after one upload: the handlers' counters moved by the file's chunks,
the local models' calls were counted, every consumer's queue depth is there, and no label names
the user or the file."""

import asyncio
import time
import uuid
from collections import Counter
from contextlib import suppress

import asyncpg
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from shared.bus import create_broker
from shared.contracts import STREAM_NAME, Consumer
from shared.launcher.stack import Stack
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

Labels = frozenset[tuple[str, str]]
# one scrape of every process: (process label, sample name, labels) → value
Scrape = dict[tuple[str, str, Labels], float]
QUIET_TIMEOUT_SECONDS = 120.0
METRICS_TIMEOUT_SECONDS = 10.0


async def wait_for_endpoints(stack: Stack) -> None:
    """The gateway is ready before every service has started: wait for each one's /metrics."""
    deadline = time.monotonic() + QUIET_TIMEOUT_SECONDS
    async with httpx.AsyncClient(timeout=5) as client:
        for process, url in stack.metrics_urls().items():
            while True:
                with suppress(httpx.TransportError):
                    if (await client.get(url)).status_code == 200:
                        break
                assert time.monotonic() < deadline, f"no metrics from {process} at {url}"
                await asyncio.sleep(0.2)


async def scrape(stack: Stack) -> Scrape:
    samples: Scrape = {}
    async with httpx.AsyncClient(timeout=10) as client:
        for process, url in stack.metrics_urls().items():
            response = await client.get(url)
            assert response.status_code == 200, (process, response.status_code)
            for family in text_string_to_metric_families(response.text):
                for sample in family.samples:
                    key = (process, sample.name, frozenset(sample.labels.items()))
                    samples[key] = sample.value
    return samples


def total(samples: Scrape, service: str, name: str, **labels: str) -> float:
    """The sum of a sample over every process of a service (both compressors, say)."""
    wanted = set(labels.items())
    return sum(
        value
        for (process, sample, sample_labels), value in samples.items()
        if process.rsplit("-", 1)[0] == service and sample == name and wanted <= sample_labels
    )


# what to compare: (service, sample name, labels)
Expected = dict[tuple[str, str, tuple[tuple[str, str], ...]], float]


def moved(before: Scrape, after: Scrape, service: str, name: str, **labels: str) -> float:
    return total(after, service, name, **labels) - total(before, service, name, **labels)


def expected_moves(types: Counter[str]) -> Expected:
    """What one file of these chunk types moves: handlers count a message as it arrives, before
    they run (and publish the next stage)."""
    received = "artisan_received_messages_total"
    strategic, factual = types["strategic"], types["factual"]
    return {
        (
            "gateway",
            "artisan_http_requests_total",
            (("method", "POST"), ("route", "/v1/files"), ("status", "202")),
        ): 1,
        ("gateway", "artisan_published_messages_total", (("destination", "file.uploaded"),)): 1,
        ("extractor", received, (("handler", "file.uploaded"),)): 1,
        ("chunker", received, (("handler", "file.extracted"),)): 1,
        ("compressor", received, (("handler", "chunk.ready.strategic"),)): strategic,
        ("embedder", received, (("handler", "chunk.compressed"),)): strategic,
        ("embedder", received, (("handler", "chunk.ready.factual"),)): factual,
        ("compressor", received, (("handler", "file.embedded"),)): 1,
        ("compressor", "artisan_file_upload_to_ready_seconds_count", ()): 1,
        ("compressor", "artisan_files_finished_total", (("status", "ready"),)): 1,
        (
            "embedder",
            "artisan_model_calls_total",
            (("role", "embed"), ("provider", "local")),
        ): strategic + factual,
    }


async def scrape_once_moved(stack: Stack, before: Scrape, expected: Expected) -> Scrape:
    """Scrape until every expected counter has moved as far (the last ones move just after the
    file turns ready), then compare: more would be as wrong as less."""
    deadline = time.monotonic() + METRICS_TIMEOUT_SECONDS
    while True:
        after = await scrape(stack)
        found = {key: moved(before, after, key[0], key[1], **dict(key[2])) for key in expected}
        if all(found[key] >= n for key, n in expected.items()):
            assert found == expected
            return after
        assert time.monotonic() < deadline, {k: (found[k], n) for k, n in expected.items()}
        await asyncio.sleep(0.1)


def small_file_moves(strategic: int) -> Expected:
    """What one small note moves: its text is read at upload, so the gateway sends it straight
    to the chunker, which finishes it with one embedding call for all its chunks; the extractor,
    the compressor and the embedder receive nothing."""
    received = "artisan_received_messages_total"
    local_call = (("provider", "local"),)
    published = "artisan_published_messages_total"
    return {
        ("gateway", published, (("destination", "file.uploaded"),)): 0,
        ("gateway", published, (("destination", "file.extracted"),)): 1,
        ("extractor", received, (("handler", "file.uploaded"),)): 0,
        ("chunker", received, (("handler", "file.extracted"),)): 1,
        ("compressor", received, (("handler", "chunk.ready.strategic"),)): 0,
        ("embedder", received, (("handler", "chunk.compressed"),)): 0,
        ("embedder", received, (("handler", "chunk.ready.factual"),)): 0,
        ("compressor", received, (("handler", "file.embedded"),)): 0,
        ("chunker", "artisan_files_finished_total", (("status", "ready"),)): 1,
        ("chunker", "artisan_model_calls_total", (("role", "embed"), *local_call)): 1,
        ("chunker", "artisan_model_calls_total", (("role", "compress"), *local_call)): strategic,
    }


async def wait_until_quiet(stack: Stack, db: asyncpg.Pool) -> None:
    """Earlier tests' work finished: no file processing, nothing pending on any consumer, twice in
    a row; otherwise their messages would move the counters this test reads."""
    broker = create_broker(stack.nats_url)
    await broker.connect()
    ours = {consumer.value for consumer in Consumer}
    quiet_checks = 0
    deadline = time.monotonic() + QUIET_TIMEOUT_SECONDS
    try:
        while quiet_checks < 2:
            assert time.monotonic() < deadline, "earlier work did not finish"
            infos = await broker.connection.jetstream().consumers_info(STREAM_NAME)
            busy = any(
                info.num_pending or info.num_ack_pending for info in infos if info.name in ours
            )
            processing = await db.fetchval("SELECT count(*) FROM files WHERE status = 'processing'")
            quiet_checks = 0 if busy or processing else quiet_checks + 1
            await asyncio.sleep(0.2)
    finally:
        await broker.stop()


async def test_each_service_reports_the_upload_it_processed(
    system: Stack, db: asyncpg.Pool, api_client: httpx.AsyncClient
) -> None:
    await wait_for_endpoints(system)
    await wait_until_quiet(system, db)
    before = await scrape(system)
    filename = f"metrics-probe-{uuid.uuid4().hex[:8]}.md"
    # not UTF-8, so the extractor reads it (a UTF-8 note is read at upload and skips it)
    memo = documents.legacy_encoded(documents.long_markdown() + f"\n{filename}\n")
    record = await upload(api_client, filename, memo)
    ready = await wait_for_status(api_client, record["id"], "ready", timeout=60)
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    types = Counter(chunk["chunk_type"] for chunk in chunks)
    assert types["strategic"] > 0, types  # the memo has chunks that go through the compressor
    assert ready["total_chunks"] == len(chunks)

    after = await scrape_once_moved(system, before, expected_moves(types))

    local = {"provider": "local"}
    compress_calls = moved(before, after, "compressor", "artisan_model_calls_total", **local)
    assert compress_calls >= 2 * types["strategic"]  # compress and verify each
    assert moved(before, after, "chunker", "artisan_model_calls_total", **local) > 0
    depths = {
        dict(labels)["consumer"]
        for (_, name, labels) in after
        if name == "artisan_consumer_pending_messages"
    }
    assert depths == {consumer.value for consumer in Consumer}
    secrets = (str(api_client.user_id), record["id"], filename)  # type: ignore[attr-defined]
    leaked = [
        (process, name, value)
        for (process, name, labels) in after
        for _, value in labels
        if any(secret in value for secret in secrets)
    ]
    assert not leaked


async def test_a_small_note_skips_the_extractor_and_is_finished_by_the_chunker(
    system: Stack, db: asyncpg.Pool, api_client: httpx.AsyncClient
) -> None:
    await wait_until_quiet(system, db)
    before = await scrape(system)
    filename = f"small-probe-{uuid.uuid4().hex[:8]}.md"
    record = await upload(api_client, filename, documents.markdown() + f"\n{filename}\n")
    ready = await wait_for_status(api_client, record["id"], "ready", timeout=60)
    chunks = (await api_client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    strategic = sum(chunk["chunk_type"] == "strategic" for chunk in chunks)
    assert strategic > 0 and ready["total_chunks"] == len(chunks) and ready["summary"]
    assert all(chunk["decision_arc_summary"] for chunk in chunks)

    await scrape_once_moved(system, before, small_file_moves(strategic))
    vectors = await db.fetchval(
        "SELECT count(*) FROM file_chunks WHERE file_id = $1 AND embedding IS NOT NULL",
        uuid.UUID(record["id"]),
    )
    assert vectors == len(chunks)
