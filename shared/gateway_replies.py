"""What the gateway's error replies say, read by its own clients: the CLI and the MCP server."""

import httpx


def api_error(response: httpx.Response) -> str:
    """The `detail` of an API error response, or its HTTP status."""
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):  # FastAPI validation errors: a list of {loc, msg, type}
        detail = "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    return str(detail) if detail else f"HTTP {response.status_code} {response.reason_phrase}"
