"""The gateway shows its parts (issue 31): main.py assembles feature packages, and only the
named plumbing sits beside it. A new feature goes into a package of its own, so a loose module at
the top level fails here; pyproject.toml's layers contract holds the imports between the parts."""

import tomllib
from pathlib import Path

import services.gateway

GATEWAY = Path(services.gateway.__file__).parent
PYPROJECT = GATEWAY.parents[1] / "pyproject.toml"
# what every feature shares: auth, limits, errors, probes and the web client's page
PLUMBING = {
    "auth",
    "body_limit",
    "deps",
    "errors",
    "health",
    "metrics",
    "paging",
    "request_metrics",
    "schemas",
    "security_headers",
    "web",
}
TOP_LEVEL = {"__init__", "main", *PLUMBING}
NOT_CODE = {"static", "__pycache__"}


def gateway_layers() -> list[str]:
    config = tomllib.loads(PYPROJECT.read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    [shape] = [c for c in contracts if c.get("containers") == ["services.gateway"]]
    return shape["layers"]


def layer_names(layer: str) -> set[str]:
    return {name.strip() for name in layer.replace("|", ":").split(":")}


def test_only_main_and_the_plumbing_sit_at_the_top_level() -> None:
    loose = {path.stem for path in GATEWAY.glob("*.py")} - TOP_LEVEL
    assert not loose, f"put {sorted(loose)} in a feature package (services/gateway/<feature>/)"


def test_every_folder_is_a_feature_package() -> None:
    folders = [path for path in GATEWAY.iterdir() if path.is_dir() and path.name not in NOT_CODE]
    assert len(folders) >= 7  # chat, conversations, files, mcp, memory, models, openai_compat...
    assert not [folder.name for folder in folders if not (folder / "__init__.py").is_file()]


def test_the_layers_contract_names_the_same_plumbing() -> None:
    main, features, plumbing, engines = gateway_layers()
    assert layer_names(main) == {"main"}
    assert layer_names(plumbing) == PLUMBING
    packages = {path.name for path in GATEWAY.iterdir() if (path / "__init__.py").is_file()}
    assert layer_names(features) | layer_names(engines) == packages
