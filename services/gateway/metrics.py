"""Prometheus metrics of the gateway process, on its own HTTP port, with the language-model
server's figures (tokens/s, queue depth) when one is set (ARTISAN_MODEL_METRICS_URL).

Open like /healthz: every label is a subject, route or model name, never a user's id or a
filename. Where the gateway faces the internet, keep /metrics off the public ingress.
"""

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from shared.metrics.model_server import model_server_exposition
from shared.models.server_settings import model_server_settings

router = APIRouter(tags=["health"])


@router.get("/metrics", include_in_schema=False)
def metrics() -> Response:
    """The process's counters in Prometheus's text format, then the model server's (a plain
    def: FastAPI runs it in a thread, away from the event loop, and the model server is read
    with a blocking call)."""
    model = model_server_exposition(model_server_settings().model_metrics_url)
    return Response(generate_latest(REGISTRY) + model, media_type=CONTENT_TYPE_LATEST)
