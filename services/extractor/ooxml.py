"""Office Open XML packages (.docx, .xlsx, .pptx) are zips: their declared sizes are checked before
anything is inflated, and a file that is no zip at all is told apart from a damaged one."""

import io
import zipfile
from dataclasses import dataclass

from services.extractor.errors import ExtractionError, LimitExceeded

# Office XML packs 3-4 times smaller, so a 10 MB upload of text unpacks to ~40 MB; a zip bomb
# declares gigabytes. No rule on the packing ratio: a document of empty tables packs 150 times
# smaller (measured), and the total already bounds the work.
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_PARTS = 10_000
# an OLE2 compound file: what Office 97-2003 (.doc, .xls, .ppt) and password-protected Office
# files of any year are
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


@dataclass(frozen=True)
class OfficeFormat:
    """How the user knows one package format: its name, extension and what to do instead."""

    name: str  # "Word document"
    a_name: str  # "a Word document"
    extension: str  # ".docx"
    legacy_extension: str  # ".doc"
    resave: str  # what to do when the file can't be read


WORD = OfficeFormat(
    "Word document",
    "a Word document",
    ".docx",
    ".doc",
    "save it again from Word (or its text as .txt) and upload that",
)
EXCEL = OfficeFormat(
    "Excel workbook",
    "an Excel workbook",
    ".xlsx",
    ".xls",
    "save it again from Excel or Google Sheets (or each sheet as .csv) and upload that",
)
POWERPOINT = OfficeFormat(
    "PowerPoint deck",
    "a PowerPoint deck",
    ".pptx",
    ".ppt",
    "save it again from PowerPoint or Google Slides (or as .pdf) and upload that",
)


def check_package(data: bytes, kind: OfficeFormat) -> None:
    """Refuse a zip bomb before a library inflates it. zipfile returns no more of a part than
    its header declares, so the declared sizes bound what the library is given; a header that
    understates by less than the checks below notice runs into the memory limit instead."""
    try:
        parts = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception:  # not a zip at all: the format's reader words that for the user
        return
    if len(parts) > MAX_PARTS:
        raise LimitExceeded(
            f"the {kind.name} holds {len(parts):,} parts, more than the {MAX_PARTS:,} a "
            f"{kind.extension} may have; {kind.resave}"
        )
    for part in parts:
        # deflate never stores data in more than a hair over its size, so a part stored larger
        # than it declares hides its real size: zipfile would inflate all of it in one go
        if part.compress_size > part.file_size + part.file_size // 100 + 1024:
            raise ExtractionError(
                f"the {kind.name} is damaged: its part '{part.filename}' says it unpacks to "
                f"{part.file_size:,} bytes but is stored in {part.compress_size:,}; {kind.resave}"
            )
    unpacked = sum(part.file_size for part in parts)
    if unpacked > MAX_UNPACKED_BYTES:
        raise LimitExceeded(
            f"the {kind.name} unpacks to {unpacked // 2**20:,} MB, more than the "
            f"{MAX_UNPACKED_BYTES // 2**20} MB a {kind.extension} may unpack to; {kind.resave}"
        )


def unreadable(data: bytes, kind: OfficeFormat, error: Exception) -> ExtractionError:
    """Why a package could not be read, in the words of what the file most likely is."""
    if data.startswith(_OLE2_MAGIC):
        return ExtractionError(
            f"the file is an old {kind.legacy_extension} or a password-protected {kind.name}, "
            f"which can't be read; remove any password, save it as {kind.extension} (Office "
            "2007 or later) and upload that"
        )
    if not zipfile.is_zipfile(io.BytesIO(data)):  # every Office file since 2007 is a zip
        return ExtractionError(
            f"the file is not {kind.a_name} (it may be damaged, or another kind of file named "
            f"{kind.extension}); {kind.resave}"
        )
    return ExtractionError(f"could not read the {kind.name} ({error}); {kind.resave}")
