"""The CLI reads the file list a page at a time: `artisan files` to its end, the upload's poll
only as far as the files it waits for."""

import httpx
import pytest

from shared.cli import client
from tests.unit.cli.fakes import fake_http, record

# three pages of the list, newest first, as the gateway hands them out
PAGES = {
    None: {"items": [record("f5", "e.md"), record("f4", "d.md")], "next": "c1"},
    "c1": {"items": [record("f3", "c.md"), record("f2", "b.md")], "next": "c2"},
    "c2": {"items": [record("f1", "a.md")], "next": None},
}


def paged_gateway(asked: list[httpx.URL]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url)
        return httpx.Response(200, json=PAGES[request.url.params.get("before")])

    return httpx.MockTransport(answer)


def test_artisan_files_lists_every_page(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    asked: list[httpx.URL] = []
    fake_http(monkeypatch, paged_gateway(asked).handle_request)
    assert client.list_files() == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[1] for row in rows] == ["e.md", "d.md", "c.md", "b.md", "a.md"]
    assert [url.params.get("before") for url in asked] == [None, "c1", "c2"]
    assert {url.params["limit"] for url in asked} == {str(client.MAX_PAGE)}


async def test_the_poll_stops_at_the_page_holding_the_files_it_waits_for() -> None:
    asked: list[httpx.URL] = []
    async with httpx.AsyncClient(transport=paged_gateway(asked), base_url="http://a") as http:
        records = await client.records_until_seen(http, ["f4", "f3"])
        assert [r["id"] for r in records] == ["f5", "f4", "f3", "f2"] and len(asked) == 2
        assert len(await client.records_until_seen(http, [])) == 2  # the first page only
        assert len(await client.records_until_seen(http, ["gone"])) == 5  # to the end


async def test_the_poll_keeps_the_pages_read_before_a_refused_one() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("before"):
            return httpx.Response(503, json={"detail": "busy"})
        return httpx.Response(200, json=PAGES[None])

    transport = httpx.MockTransport(answer)
    async with httpx.AsyncClient(transport=transport, base_url="http://a") as http:
        records = await client.records_until_seen(http, ["f1"])
    assert [r["id"] for r in records] == ["f5", "f4"]
