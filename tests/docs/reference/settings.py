"""docs/reference/settings.md: every pydantic-settings class of the project, one table each.

The classes are found, not listed: a module of shared/ or services/ that declares a class on a
`...Settings` base is imported, and every BaseSettings subclass of the project that has fields
is documented. A new settings module therefore shows up without touching this file."""

import ast
import importlib
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from tests.docs.reference.markdown import code, page, prose, table

ROOT = Path(__file__).resolve().parents[3]
PROJECT_PACKAGES = ("shared", "services")
CORE_MODULE = "shared.config"  # its classes open the page: the ones an operator meets first
HEADER = ("variable", "type", "default", "description")
INTRO = """\
# Settings

Artisan reads its settings from environment variables, each named `ARTISAN_` and the setting's
name in capitals, when a process starts; `artisan up` passes its environment on to every
process it starts. The tables are generated from the pydantic-settings classes that declare
the settings: run `python -m tests.docs.reference --write` after changing one, and do not edit
this page by hand. Secrets (API keys, tokens) show no default."""
_BOUNDS = (
    (annotated_types.Ge, "≥", "ge"),
    (annotated_types.Gt, ">", "gt"),
    (annotated_types.Le, "≤", "le"),
    (annotated_types.Lt, "<", "lt"),
)


def settings_classes() -> list[type[BaseSettings]]:
    """The project's settings classes with fields: shared/config.py's first, then by module."""
    for module in modules_declaring_settings():
        importlib.import_module(module)
    found = [
        cls
        for cls in _all_subclasses(BaseSettings)
        if cls.__module__.split(".")[0] in PROJECT_PACKAGES and cls.model_fields
    ]
    return sorted(
        found, key=lambda cls: (cls.__module__ != CORE_MODULE, cls.__module__, _line(cls))
    )


def modules_declaring_settings() -> list[str]:
    """Modules with a class on a base named `...Settings`, read from source (not imported: most
    modules need not be, and some start work when they are)."""
    modules = []
    for package in PROJECT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text()
            if "Settings" in text and _declares_settings(ast.parse(text)):
                modules.append(_module_name(path))
    return modules


def _declares_settings(tree: ast.Module) -> bool:
    return any(
        _base_name(base).endswith("Settings")
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
    )


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_subclasses(cls: type) -> list[type]:
    direct = cls.__subclasses__()
    return direct + [sub for child in direct for sub in _all_subclasses(child)]


def _line(cls: type) -> int:
    tree = ast.parse(Path(importlib.import_module(cls.__module__).__file__ or "").read_text())
    return next(
        (
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and n.name == cls.__name__
        ),
        0,
    )


def env_name(cls: type[BaseSettings], name: str, field: FieldInfo) -> str:
    """The variable pydantic-settings reads: an alias as it is, else the prefix and the name."""
    if isinstance(field.validation_alias, str):
        return field.validation_alias.upper()
    return (cls.model_config.get("env_prefix", "") + name).upper()


def is_secret(annotation: Any) -> bool:
    if annotation is SecretStr:
        return True
    return any(is_secret(arg) for arg in get_args(annotation))


def type_text(annotation: Any) -> str:
    """A type as a reader writes it: `int`, `str | None`, `'local' | 'voyage'`, `dict[str, ...]`."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " | ".join(repr(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return " | ".join(type_text(arg) for arg in args)
    if origin is not None:
        inner = ", ".join("..." if arg is Ellipsis else type_text(arg) for arg in args)
        return f"{origin.__name__}[{inner}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def bounds_text(field: FieldInfo) -> str:
    """The field's numeric bounds (`ge=1, le=5` reads `≥ 1, ≤ 5`)."""
    return ", ".join(
        f"{sign} {getattr(rule, attribute)}"
        for rule in field.metadata
        for kind, sign, attribute in _BOUNDS
        if isinstance(rule, kind)
    )


def default_text(field: FieldInfo) -> str:
    """The default as an operator would set it; a secret's is never shown."""
    if is_secret(field.annotation):
        return "(secret)"
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return code(str(value).lower())
    if isinstance(value, Path):
        return code(_home_as_tilde(value))
    if isinstance(value, str):
        return code(value) if value else "empty"
    return code(value)


def _home_as_tilde(path: Path) -> str:
    """~/.artisan, not this machine's home directory: the page is the same on every machine."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def class_section(cls: type[BaseSettings]) -> list[str]:
    doc = (cls.__dict__.get("__doc__") or "").strip()
    source = Path(*cls.__module__.split(".")).with_suffix(".py")
    rows = [
        (
            code(env_name(cls, name, field)),
            ", ".join(filter(None, (type_text(field.annotation), bounds_text(field)))),
            default_text(field),
            field.description or "",
        )
        for name, field in cls.model_fields.items()
    ]
    heading = f"`{source}`" + (f": {prose(doc)}" if doc else "")
    return [f"## {cls.__name__}", "", heading, "", *table(HEADER, rows), ""]


def render() -> str:
    lines = [INTRO, ""]
    for cls in settings_classes():
        lines.extend(class_section(cls))
    return page(lines)


def undescribed() -> list[str]:
    """`Class.field (ARTISAN_NAME)` for every setting without a description."""
    return [
        f"{cls.__name__}.{name} ({env_name(cls, name, field)})"
        for cls in settings_classes()
        for name, field in cls.model_fields.items()
        if not (field.description or "").strip()
    ]
