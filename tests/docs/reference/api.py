"""docs/reference/openapi.json and api.md: the OpenAPI schema the gateway serves, and the page
that reads it (endpoints by tag, then the schemas they name), plain Markdown with no script."""

import importlib
import json
from typing import Any

from markdown.extensions.toc import slugify

from shared.config import InfraSettings
from tests.docs.reference.markdown import cell, code, page, prose, table

GATEWAY_MODULE = "services.gateway.main"
APP_FACTORY = "create_app"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PARAMETER_HEADER = ("name", "in", "type", "required", "description")
RESPONSE_HEADER = ("status", "meaning", "body")
PROPERTY_HEADER = ("field", "type", "required", "description")
INTRO = """\
# HTTP API

The gateway's endpoints, generated from the OpenAPI schema it serves at `/openapi.json` (the
same schema is [openapi.json](openapi.json) beside this page, for code generators and API
tools). Run `python -m tests.docs.reference --write` after changing a route; do not edit this
page by hand. Endpoints marked *API key* take `Authorization: Bearer KEY` ({security})."""
Schema = dict[str, Any]


def gateway_schema() -> Schema:
    """`app.openapi()` of the gateway as it is assembled: the app is built, never started."""
    factory = getattr(importlib.import_module(GATEWAY_MODULE), APP_FACTORY)
    never_dialled = InfraSettings(nats_url="nats://unused", database_url="postgresql://unused")
    return factory(never_dialled).openapi()


def schema_json(schema: Schema) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def anchor(name: str) -> str:
    """The id Markdown's table of contents gives a heading (MkDocs' default)."""
    return slugify(name, "-")


def type_text(schema: Schema) -> str:
    """A schema in a few words: `string`, `array of [FileRecord](#filerecord)`, `one of ...`."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{anchor(name)})"
    for combiner, joiner in (("anyOf", " or "), ("oneOf", " or "), ("allOf", " and ")):
        if combiner in schema:
            return joiner.join(type_text(part) for part in schema[combiner])
    if "const" in schema:
        return code(json.dumps(schema["const"]))
    if "enum" in schema:
        return "one of " + ", ".join(code(json.dumps(value)) for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array" or "items" in schema:
        return "array of " + type_text(schema.get("items", {}))
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "object of " + type_text(schema["additionalProperties"])
    return f"{kind} ({schema['format']})" if "format" in schema else kind


def limits_text(schema: Schema) -> str:
    """Bounds and default: `1–500, default 100`."""
    words = [
        f"{label} {schema[key]}"
        for key, label in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("maximum", "≤"),
            ("exclusiveMaximum", "<"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
            ("maxItems", "items ≤"),
        )
        if key in schema
    ]
    if "default" in schema:
        words.append("default " + code(json.dumps(schema["default"])))
    return ", ".join(words)


def described_type(schema: Schema) -> str:
    return ", ".join(filter(None, (type_text(schema), limits_text(schema))))


def parameters_part(operation: Schema) -> list[str]:
    rows = [
        (
            code(parameter["name"]),
            parameter["in"],
            described_type(parameter.get("schema", {})),
            "yes" if parameter.get("required") else "no",
            parameter.get("description", ""),
        )
        for parameter in operation.get("parameters", [])
    ]
    return ["**Parameters**", "", *table(PARAMETER_HEADER, rows), ""] if rows else []


def body_part(operation: Schema) -> list[str]:
    body = operation.get("requestBody")
    if not body:
        return []
    required = "required" if body.get("required") else "optional"
    lines = [f"**Request body** ({required})", ""]
    for media_type, content in body.get("content", {}).items():
        schema = content.get("schema", {})
        lines.append(f"- `{media_type}`: {cell(type_text(schema))}")
        lines.extend(
            f"    - {code(name)}: {cell(described_type(field))}{_dash(field)}"
            for name, field in schema.get("properties", {}).items()
        )
    return [*lines, ""]


def _dash(field: Schema) -> str:
    return f" — {cell(field['description'])}" if field.get("description") else ""


def responses_part(operation: Schema) -> list[str]:
    rows = [
        (status, response.get("description", ""), _bodies(response))
        for status, response in sorted(operation.get("responses", {}).items())
    ]
    return ["**Responses**", "", *table(RESPONSE_HEADER, rows), ""]


def _bodies(response: Schema) -> str:
    return "; ".join(
        f"{code(media_type)}: {type_text(content.get('schema', {}))}"
        for media_type, content in response.get("content", {}).items()
    )


def operation_section(method: str, path: str, operation: Schema) -> list[str]:
    summary = operation.get("summary", "")
    keyed = " · *API key*" if operation.get("security") else ""
    lines = [f"### {method.upper()} {path}", "", f"**{prose(summary)}**{keyed}", ""]
    if description := operation.get("description", "").strip():
        lines += [prose(description), ""]
    return lines + parameters_part(operation) + body_part(operation) + responses_part(operation)


def operations_by_tag(schema: Schema) -> dict[str, list[tuple[str, str, Schema]]]:
    """Tags in the order the gateway declares its routes; untagged routes under `other`."""
    by_tag: dict[str, list[tuple[str, str, Schema]]] = {}
    for path, item in schema.get("paths", {}).items():
        for method in HTTP_METHODS:
            if operation := item.get(method):
                tag = (operation.get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append((method, path, operation))
    return by_tag


def schema_section(name: str, schema: Schema) -> list[str]:
    lines = [f"### {name}", ""]
    if description := schema.get("description", "").strip():
        lines += [prose(description), ""]
    required = set(schema.get("required", []))
    rows = [
        (
            code(field),
            described_type(spec),
            "yes" if field in required else "no",
            spec.get("description", ""),
        )
        for field, spec in schema.get("properties", {}).items()
    ]
    if rows:
        lines += table(PROPERTY_HEADER, rows)
    elif not description:
        lines.append(cell(described_type(schema)))
    return [*lines, ""]


def render(schema: Schema) -> str:
    schemes = schema.get("components", {}).get("securitySchemes", {})
    security = "; ".join(scheme.get("description", name) for name, scheme in schemes.items())
    lines = [INTRO.format(security=security), ""]
    for tag, operations in operations_by_tag(schema).items():
        lines += [f"## {tag}", ""]
        for method, path, operation in operations:
            lines += operation_section(method, path, operation)
    lines += ["## Schemas", "", "The request and response bodies named above.", ""]
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        lines += schema_section(name, component)
    return page(lines)
