"""GET /v1/formats: the file types and sizes uploads accept, from the table uploads are checked
against (the web client's picker offers exactly these)."""

from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.gateway.files import formats_router as formats
from shared.config import GatewaySettings
from shared.formats import SUPPORTED_EXTENSIONS, media_type_for


def test_the_formats_are_the_ones_uploads_accept_and_need_no_key() -> None:
    app = FastAPI()
    app.state.gateway_settings = GatewaySettings(max_upload_bytes=1234, max_files_per_upload=7)
    app.include_router(formats.router)
    response = TestClient(app).get("/v1/formats")
    assert response.status_code == 200
    rules = response.json()
    assert [item["extension"] for item in rules["items"]] == list(SUPPORTED_EXTENSIONS)
    for item in rules["items"]:
        assert item["media_type"] == media_type_for(f"file{item['extension']}")
    assert {".csv", ".xlsx", ".pptx"} <= set(SUPPORTED_EXTENSIONS)
    assert (rules["max_upload_bytes"], rules["max_files_per_upload"]) == (1234, 7)
