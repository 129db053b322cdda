"""Which files `artisan upload PATH...` sends."""

from pathlib import Path

from shared.cli.discovery import BROKEN_LINK, LINK_OUT, Discovery, discover, why_not_inside
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


# ── links (issue 29, finding 9: a link to ~/.aws/credentials in a synced folder was uploaded) ──


def test_a_link_out_of_the_folder_is_never_followed_and_is_named(tmp_path: Path) -> None:
    outside, folder = tmp_path / "home", tmp_path / "notes"
    make_files(outside, ".aws/credentials.md", "private/diary.md")
    make_files(folder, "plan.md")
    (folder / "creds.md").symlink_to(outside / ".aws" / "credentials.md")
    (folder / "private").symlink_to(outside / "private")
    found = discover([folder], EXTENSIONS)
    assert found.files == [folder / "plan.md"]
    assert found.skipped == {LINK_OUT: [folder / "creds.md", folder / "private"]}
    assert skipped_lines(found, EXTENSIONS) == [
        f"skipped 2: link out of the folder: {folder / 'creds.md'}, {folder / 'private'}"
    ]


def test_a_link_within_the_folder_is_followed_once_and_a_loop_ends(tmp_path: Path) -> None:
    make_files(tmp_path, "a/one.md", ".archive/old.md")
    (tmp_path / "a" / "up").symlink_to(tmp_path)  # a loop: the folder inside itself
    (tmp_path / "a" / "again").symlink_to(tmp_path / "a")  # a loop one level down
    (tmp_path / "old").symlink_to(tmp_path / ".archive")  # a visible way into a hidden folder
    (tmp_path / "same.md").symlink_to(tmp_path / "a" / "one.md")
    found = discover([tmp_path], EXTENSIONS)
    # each file once, by its own path where it has one
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == ["a/one.md", "old/old.md"]
    assert found.skipped == {}


def test_a_link_to_nothing_is_named(tmp_path: Path) -> None:
    (tmp_path / "gone.md").symlink_to(tmp_path / "deleted.md")
    found = discover([tmp_path], EXTENSIONS)
    assert found.files == [] and found.skipped == {BROKEN_LINK: [tmp_path / "gone.md"]}


def test_a_file_named_on_its_own_is_sent_even_as_a_link(tmp_path: Path) -> None:
    make_files(tmp_path, "elsewhere/x.md")
    (tmp_path / "x.md").symlink_to(tmp_path / "elsewhere" / "x.md")
    assert discover([tmp_path / "x.md"], EXTENSIONS).files == [tmp_path / "x.md"]


def test_why_not_inside_resolves_links(tmp_path: Path) -> None:
    make_files(tmp_path, "in/a.md", "out.md")
    (tmp_path / "in" / "b.md").symlink_to(tmp_path / "out.md")
    assert why_not_inside(tmp_path / "in", tmp_path / "in" / "a.md") is None
    assert why_not_inside(tmp_path / "in", tmp_path / "in" / "b.md") == LINK_OUT
