"""Upload rules: filename neutralising and the messages users get for bad uploads."""

import pytest

from services.gateway.files import uploads
from services.gateway.files.uploads import UploadRejected, check_extension, sanitize_filename

SUPPORTED = {".md", ".pdf", ".txt"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("notes.md", "notes.md"),
        ("../../etc/passwd.txt", "passwd.txt"),
        ("..\\..\\windows\\system32\\evil.txt", "evil.txt"),
        ("C:\\Users\\me\\report.pdf", "report.pdf"),
        ("/abs/path/file.md", "file.md"),
        ("..", "upload"),
        ("...", "upload"),
        ("", "upload"),
        ("   ", "upload"),
        ("dir/", "upload"),
        ("bad\x00name\x1f.txt", "badname.txt"),
        ("line\nbreak\r.md", "linebreak.md"),
        ("spoof\u202etxt.pdf", "spooftxt.pdf"),  # right-to-left override
        ("a..b.txt", "a.b.txt"),
        (".hidden.md", "hidden.md"),
        ("ünïcödé.md", "ünïcödé.md"),
    ],
)
def test_hostile_filenames_are_neutralised(raw: str, expected: str) -> None:
    assert sanitize_filename(raw) == expected


def test_long_filenames_are_trimmed_keeping_the_extension() -> None:
    name = sanitize_filename("x" * 1000 + ".pdf")
    assert len(name) == uploads.MAX_FILENAME_LENGTH
    assert name.endswith(".pdf")


def test_a_long_fake_extension_is_not_kept_when_trimming() -> None:
    name = sanitize_filename("x." + "y" * 500)
    assert len(name) <= uploads.MAX_FILENAME_LENGTH


@pytest.mark.parametrize("raw", ["../x", "a/b\\c", "\x00\x01", "....//....", "\u200b.md"])
def test_sanitised_names_are_never_empty_and_have_no_separators(raw: str) -> None:
    name = sanitize_filename(raw)
    assert name
    assert "/" not in name and "\\" not in name and ".." not in name
    assert all(ch.isprintable() for ch in name)


def test_supported_extensions_are_case_insensitive() -> None:
    check_extension("REPORT.PDF", SUPPORTED)


def test_unsupported_extension_is_415_listing_what_is_supported() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_extension("tool.exe", SUPPORTED)
    assert caught.value.status_code == 415
    assert ".exe" in caught.value.detail and "tool.exe" in caught.value.detail
    assert ".md, .pdf, .txt" in caught.value.detail


def test_missing_extension_is_415() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_extension("Makefile", SUPPORTED)
    assert caught.value.status_code == 415
    assert "without an extension" in caught.value.detail


def test_too_large_names_the_limit_in_mb_and_the_file() -> None:
    error = uploads.too_large("big.txt", 10 * 1024 * 1024)
    assert error.status_code == 413
    assert "10 MB" in error.detail and "big.txt" in error.detail


def test_empty_and_no_files_are_422_with_a_way_forward() -> None:
    assert uploads.empty_file("x.md").status_code == 422
    missing = uploads.no_files()
    assert missing.status_code == 422 and "files" in missing.detail and "curl" in missing.detail


def test_megabytes_are_formatted_readably() -> None:
    assert uploads.format_megabytes(2 * 1024 * 1024) == "2 MB"
    assert uploads.format_megabytes(1536 * 1024) == "1.5 MB"
