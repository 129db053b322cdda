"""Which files `artisan upload PATH...` sends."""

from pathlib import Path

from shared.cli.discovery import Discovery, discover
from shared.cli.upload import skipped_lines

EXTENSIONS = (".md", ".txt", ".pdf")


def make_files(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("text")


def test_folders_are_walked_recursively_in_a_stable_order(tmp_path: Path) -> None:
    make_files(tmp_path, "b.md", "a.txt", "sub/c.pdf", "sub/deeper/d.md")
    found = discover([tmp_path], EXTENSIONS)
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == [
        "a.txt",
        "b.md",
        "sub/c.pdf",
        "sub/deeper/d.md",
    ]


def test_hidden_files_and_folders_are_left_out_silently(tmp_path: Path) -> None:
    make_files(tmp_path, "notes.md", ".hidden.md", ".git/config.md", "sub/.cache/x.md")
    found = discover([tmp_path], EXTENSIONS)
    assert found.files == [tmp_path / "notes.md"]
    assert found.unsupported == []


def test_unsupported_types_are_reported_not_sent(tmp_path: Path) -> None:
    make_files(tmp_path, "doc.MD", "photo.png", "README")
    found = discover([tmp_path], EXTENSIONS)
    assert found.files == [tmp_path / "doc.MD"]
    assert found.unsupported == [tmp_path / "README", tmp_path / "photo.png"]


def test_explicitly_named_files_are_sent_even_when_hidden(tmp_path: Path) -> None:
    make_files(tmp_path, ".draft.md")
    assert discover([tmp_path / ".draft.md"], EXTENSIONS).files == [tmp_path / ".draft.md"]


def test_a_file_named_twice_is_sent_once(tmp_path: Path) -> None:
    make_files(tmp_path, "a.md")
    found = discover([tmp_path / "a.md", tmp_path, tmp_path / "." / "a.md"], EXTENSIONS)
    assert found.files == [tmp_path / "a.md"]


def test_missing_paths_are_reported(tmp_path: Path) -> None:
    found = discover([tmp_path / "nope.md"], EXTENSIONS)
    assert found == Discovery(missing=[tmp_path / "nope.md"])


def test_skipped_lines_list_every_skipped_file_and_what_is_supported() -> None:
    found = Discovery(unsupported=[Path("x.png"), Path("y.bin")], missing=[Path("gone")])
    assert skipped_lines(found, EXTENSIONS) == [
        "not found: gone",
        "skipped 2 files of unsupported types (supported: .md .txt .pdf):",
        "  x.png",
        "  y.bin",
    ]
