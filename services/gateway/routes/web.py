"""The web client: `GET /` serves the single page; its scripts, styles and vendored libraries are
static files under `/static` (no build step). It uses only the public API, like any client."""

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

# answers are rendered from model output: even sanitised HTML gets no inline script to run
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}
    return FileResponse(STATIC_DIR / "index.html", headers=headers)


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
