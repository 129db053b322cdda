"""The web client's files: served with a strict policy, self-contained (nothing from a CDN), and
every module import resolves to a file that is there."""

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.gateway import web
from services.gateway.security_headers import add_security_headers

IMPORT = re.compile(r"""^import .* from "(?P<path>[^"]+)";$""", re.MULTILINE)
VENDORED = {"marked/marked.esm.js": "18.2.1", "dompurify/purify.es.mjs": "3.4.18"}


def client() -> TestClient:
    app = FastAPI()
    app.include_router(web.router)
    web.mount_static(app)
    add_security_headers(app)
    return TestClient(app)


def test_the_page_is_served_at_the_root_with_a_content_security_policy() -> None:
    response = client().get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert '<script type="module" src="/static/js/main.js">' in response.text


def test_nothing_is_loaded_from_another_origin() -> None:
    page = client().get("/").text
    assert not re.search(r"""(src|href)="(https?:)?//""", page)
    for script in (web.STATIC_DIR / "js").glob("*.js"):
        assert "http://" not in script.read_text() and "https://" not in script.read_text()


def test_every_module_import_resolves_to_a_served_file() -> None:
    served = client()
    for script in (web.STATIC_DIR / "js").glob("*.js"):
        for match in IMPORT.finditer(script.read_text()):
            target = (script.parent / match["path"]).resolve()
            assert target.is_file(), f"{script.name} imports missing {match['path']}"
            url = "/static/" + target.relative_to(web.STATIC_DIR).as_posix()
            assert served.get(url).status_code == 200, url


def test_vendored_libraries_are_pinned_and_licensed() -> None:
    vendor = web.STATIC_DIR / "vendor"
    listing = (vendor / "README.md").read_text()
    for path, version in VENDORED.items():
        assert (vendor / path).is_file()
        assert (vendor / path).parent.joinpath("LICENSE").is_file()
        assert f"| {version} |" in listing, f"{path} is not listed at {version}"
