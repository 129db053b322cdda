"""/v1/formats: what an upload may be — the file types and sizes POST /v1/files accepts. The web
client's file picker offers exactly these, so the picker and the server cannot disagree."""

from fastapi import APIRouter
from pydantic import BaseModel, Field

from services.gateway.deps import Settings
from shared.formats import supported_formats

router = APIRouter(tags=["files"])


class FileFormat(BaseModel):
    extension: str = Field(description="lower-case, with its dot: '.xlsx'")
    media_type: str = Field(description="the media type Artisan records for such a file")


class UploadRules(BaseModel):
    items: list[FileFormat] = Field(description="every file type an upload may be")
    max_upload_bytes: int = Field(description="the size one file may have")
    max_files_per_upload: int = Field(description="the files one request may carry")


@router.get("/v1/formats", response_model=UploadRules)
async def list_formats(settings: Settings) -> UploadRules:
    """The file types and sizes an upload may have (no key needed: nothing here is private)."""
    return UploadRules(
        items=[
            FileFormat(extension=extension, media_type=media_type)
            for extension, media_type in supported_formats().items()
        ],
        max_upload_bytes=settings.max_upload_bytes,
        max_files_per_upload=settings.max_files_per_upload,
    )
