"""API-key authentication: `Authorization: Bearer <key>`, or `?api_key=` for EventSource streams."""

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import APIKeyQuery, HTTPAuthorizationCredentials, HTTPBearer

from services.gateway.deps import get_pool
from shared.db.users import User, find_user_by_api_key

GET_A_KEY = "Create a user and key with `artisan users create NAME` (the key is printed once)."
MISSING_KEY = f"Missing API key: send the header `Authorization: Bearer <key>`. {GET_A_KEY}"
INVALID_KEY = f"Invalid API key. {GET_A_KEY}"

# these only describe the schemes in /docs; the checks below make the messages
_bearer = HTTPBearer(auto_error=False, description="API key from `artisan users create NAME`")
_query_key = APIKeyQuery(
    name="api_key", auto_error=False, description="for EventSource, which cannot send headers"
)


async def _user_for_key(request: Request, api_key: str | None) -> User:
    if not api_key:
        raise _unauthorized(MISSING_KEY)
    user = await find_user_by_api_key(get_pool(request), api_key=api_key)
    if user is None:
        raise _unauthorized(INVALID_KEY)
    return user


def _bearer_key(request: Request) -> str | None:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme and scheme.lower() != "bearer":
        raise _unauthorized(f"Unsupported authorization scheme '{scheme}'. {MISSING_KEY}")
    return key.strip() or None


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": "Bearer"})


async def require_user(
    request: Request,
    _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    return await _user_for_key(request, _bearer_key(request))


async def require_stream_user(
    request: Request,
    _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_query_key)],
) -> User:
    """Streams also take `?api_key=`: browsers' EventSource cannot set an Authorization header."""
    return await _user_for_key(request, _bearer_key(request) or api_key)


CurrentUser = Annotated[User, Depends(require_user)]
StreamUser = Annotated[User, Depends(require_stream_user)]
