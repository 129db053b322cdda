"""Prometheus metrics of the gateway process, on its own HTTP port.

Open like /healthz: every label is a subject, route or model name, never a user's id or a
filename. Where the gateway faces the internet, keep /metrics off the public ingress.
"""

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

router = APIRouter(tags=["health"])


@router.get("/metrics", include_in_schema=False)
def metrics() -> Response:
    """The process's counters in Prometheus's text format (a plain def: FastAPI runs it in a
    thread, away from the event loop)."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
