"""The gateway's request metrics: labelled by route template, method and status, never by an id
in the path or a made-up path or method."""

import uuid

import httpx
from fastapi import FastAPI
from prometheus_client import REGISTRY

from services.gateway.request_metrics import RequestMetrics


def app_with_metrics() -> FastAPI:
    app = FastAPI()

    @app.get("/v1/things/{thing_id}")
    async def thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id}

    @app.get("/v1/broken")
    async def broken() -> None:
        raise RuntimeError("a bug")

    app.add_middleware(RequestMetrics)
    return app


def requests(method: str, route: str, status: str) -> float:
    labels = {"method": method, "route": route, "status": status}
    return REGISTRY.get_sample_value("artisan_http_requests_total", labels) or 0.0


def route_labels() -> set[str]:
    return {
        sample.labels["route"]
        for metric in REGISTRY.collect()
        if metric.name == "artisan_http_requests"
        for sample in metric.samples
    }


async def test_requests_are_counted_by_route_template_and_status() -> None:
    before = {
        "thing": requests("GET", "/v1/things/{thing_id}", "200"),
        "unmatched": requests("GET", "unmatched", "404"),
        "other": requests("other", "/v1/things/{thing_id}", "405"),
        "broken": requests("GET", "/v1/broken", "500"),
    }
    thing_id = str(uuid.uuid4())
    transport = httpx.ASGITransport(app=app_with_metrics(), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        assert (await client.get(f"/v1/things/{thing_id}")).status_code == 200
        assert (await client.get(f"/nothing/{thing_id}")).status_code == 404
        assert (await client.request("BREW", f"/v1/things/{thing_id}")).status_code == 405
        assert (await client.get("/v1/broken")).status_code == 500

    assert requests("GET", "/v1/things/{thing_id}", "200") == before["thing"] + 1
    assert requests("GET", "unmatched", "404") == before["unmatched"] + 1
    assert requests("other", "/v1/things/{thing_id}", "405") == before["other"] + 1
    assert requests("GET", "/v1/broken", "500") == before["broken"] + 1
    assert not any(thing_id in route for route in route_labels())
