"""Security headers on every response the gateway sends: the web client and its static files, the
API's JSON, errors (a 500 too) and event streams. One pure ASGI middleware: it adds headers to
the response's start and passes the body through untouched, so streams still stream
(Starlette's BaseHTTPMiddleware would buffer them)."""

from starlette.applications import Starlette

from services.gateway.body_limit import ASGIApp, Message, Receive, Scope, Send

# answers are rendered from model output: even sanitised HTML gets no inline script to run, no
# remote image to leak through, and no frame to be clickjacked in
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# FastAPI's /docs and /redoc load Swagger UI and ReDoc from a CDN and start them with an inline
# script; those pages show the API's schema, never a user's data
DOCS_PATHS = ("/docs", "/redoc")
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com "
    "https://cdn.redoc.ly; connect-src 'self'; worker-src blob:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
}


def security_headers(path: str) -> list[tuple[bytes, bytes]]:
    """The headers every response to `path` carries."""
    policy = (
        DOCS_CONTENT_SECURITY_POLICY if path.startswith(DOCS_PATHS) else CONTENT_SECURITY_POLICY
    )
    headers = {"Content-Security-Policy": policy, **COMMON_HEADERS}
    return [(name.lower().encode(), value.encode()) for name, value in headers.items()]


class SecurityHeaders:
    """Sets the security headers on each HTTP response, replacing any a route set itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        added = security_headers(scope["path"])
        names = {name for name, _ in added}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = kept + added
            await send(message)

        await self.app(scope, receive, send_with_headers)


def add_security_headers(app: Starlette) -> None:
    """Wrap the whole middleware stack, Starlette's ServerErrorMiddleware included: a middleware
    added with app.add_middleware sits inside it and would miss the 500s it answers. Call it
    last, after anything else that rebuilds the stack (OpenTelemetry's instrumentation)."""
    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: SecurityHeaders(build())
