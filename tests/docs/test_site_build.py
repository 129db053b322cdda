"""The documentation site builds with `mkdocs build --strict` (a broken link or a page missing
from the navigation fails), and a reader's browser fetches nothing from another host: no web
font, stylesheet, script or image from a CDN."""

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).with_name("mkdocs")
REMOTE = ("http://", "https://", "//")
# <link rel=...> that a browser fetches (a canonical or alternate link it does not)
FETCHED_RELS = {"stylesheet", "preload", "prefetch", "preconnect", "dns-prefetch", "icon"}
FETCHED_RELS |= {"modulepreload", "manifest", "apple-touch-icon"}
SOURCE_ATTRIBUTES = {"script": "src", "img": "src", "iframe": "src", "source": "src"}
SOURCE_ATTRIBUTES |= {"audio": "src", "video": "src", "embed": "src", "object": "data"}
FONT_HOSTS = ("fonts.googleapis", "fonts.gstatic")


class _RemoteAssets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "link" and FETCHED_RELS & set(values.get("rel", "").lower().split()):
            url = values.get("href", "")
        else:
            url = values.get(SOURCE_ATTRIBUTES.get(tag, ""), "")
        if url.startswith(REMOTE):
            self.found.append(f"<{tag}> {url}")


def remote_assets(site: Path) -> list[str]:
    """What a page of the built site would fetch from another host, `page: <tag> url`."""
    found = []
    for page in sorted(site.rglob("*.html")):
        parser = _RemoteAssets()
        parser.feed(page.read_text())
        found += [f"{page.relative_to(site)}: {asset}" for asset in parser.found]
    for asset in sorted([*site.rglob("*.html"), *site.rglob("*.css")]):
        text = asset.read_text()
        found += [f"{asset.relative_to(site)}: {host}" for host in FONT_HOSTS if host in text]
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (ROOT / "mkdocs.yml").exists():
        pytest.skip("no mkdocs.yml yet")
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [str(MKDOCS), "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner about its successor
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-6000:]
    return site


def test_the_site_builds_strict_with_the_reference_pages(site: Path) -> None:
    for page in ("api", "settings", "cli"):
        built = (site / "reference" / page / "index.html", site / "reference" / f"{page}.html")
        assert any(path.exists() for path in built), page


def test_a_reader_fetches_nothing_from_another_host(site: Path) -> None:
    found = remote_assets(site)
    # Material asks Google for its fonts unless mkdocs.yml says `theme: font: false`
    assert not found, "the built site would fetch:\n" + "\n".join(found[:20])


def test_the_check_sees_a_web_font_and_a_cdn_script(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<link rel="canonical" href="https://example.org/">'
        '<script src="https://cdn.example.net/x.js"></script><script src="assets/y.js"></script>'
    )
    assert remote_assets(tmp_path) == [
        "index.html: <link> https://fonts.googleapis.com/css?family=Roboto",
        "index.html: <script> https://cdn.example.net/x.js",
        "index.html: fonts.googleapis",
    ]
