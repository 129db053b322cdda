"""One upload is one trace: from the POST through every service hop, exported over OTLP."""

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from shared.launcher.embedded import free_port
from shared.launcher.stack import Stack
from tests.fixtures import documents
from tests.helpers import client_for_new_user, follow_until_settled, own_stack, upload

pytestmark = pytest.mark.asyncio(loop_scope="session")


class OtlpCollector(ThreadingHTTPServer):
    """A minimal OTLP/HTTP trace receiver: keeps (trace id, service, span name) triples."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", free_port()), _OtlpHandler)
        self.spans: list[tuple[str, str, str]] = []
        self.attribute_values: list[str] = []  # every span attribute's value, as text

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def services_by_trace(self) -> dict[str, set[str]]:
        traces: dict[str, set[str]] = defaultdict(set)
        for trace_id, service, _ in list(self.spans):
            traces[trace_id].add(service)
        return traces


class _OtlpHandler(BaseHTTPRequestHandler):
    server: OtlpCollector

    def do_POST(self) -> None:  # http.server's naming
        request = ExportTraceServiceRequest()
        request.ParseFromString(self.rfile.read(int(self.headers["Content-Length"])))
        for resource_spans in request.resource_spans:
            attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    self.server.spans.append(
                        (span.trace_id.hex(), attributes.get("service.name", "?"), span.name)
                    )
                    self.server.attribute_values += [str(a.value) for a in span.attributes]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def collector() -> Iterator[OtlpCollector]:
    server = OtlpCollector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def traced_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, collector: OtlpCollector
) -> Iterator[Stack]:
    env = {"ARTISAN_OTLP_ENDPOINT": collector.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"}
    with own_stack(tmp_path_factory.mktemp("traced"), env, pgdata=pgdata_template) as stack:
        yield stack


async def test_one_upload_is_one_trace_across_every_service(
    traced_system: Stack, collector: OtlpCollector
) -> None:
    async with await client_for_new_user(traced_system, "tracer") as client:
        # not UTF-8, so the extractor reads it (a UTF-8 note is read at upload and skips it)
        legacy = documents.legacy_encoded(documents.long_markdown())
        record = await upload(client, "memo.md", legacy)
        await follow_until_settled(client, record["id"])
    wanted = {f"artisan-{s}" for s in ("gateway", "extractor", "chunker", "compressor", "embedder")}
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if any(wanted <= services for services in collector.services_by_trace().values()):
            break
        await asyncio.sleep(0.1)
    traces = collector.services_by_trace()
    assert any(wanted <= services for services in traces.values()), dict(traces)


async def test_query_strings_never_reach_a_trace(
    traced_system: Stack, collector: OtlpCollector
) -> None:
    """A question in ?q= is the user's words, a key in the URL a secret: spans keep the path."""
    async with await client_for_new_user(traced_system, "private") as client:
        key = client.headers["Authorization"].removeprefix("Bearer ")
        question = "zanzibar quokka acquisition terms"
        assert (await client.get("/v1/search", params={"q": question})).status_code == 200
        assert (await client.get("/v1/files", params={"api_key": key})).status_code == 401
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if any("/v1/search" in value for value in collector.attribute_values):
            break
        await asyncio.sleep(0.1)
    recorded = "\n".join(collector.attribute_values)
    assert "/v1/search" in recorded  # the spans arrived, with their paths
    assert "quokka" not in recorded and key not in recorded
