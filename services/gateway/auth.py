"""API-key authentication: `Authorization: Bearer <key>`, and only that — never a key in the URL,
where access logs, proxies and traces would keep it (the web client reads its streams with fetch,
which sends the header)."""

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.gateway.deps import get_fair_use, get_pool
from services.gateway.fair_use.limits import client_address
from shared.db.users import User, find_user_by_api_key

GET_A_KEY = "Create a user and key with `artisan users create NAME` (the key is printed once)."
MISSING_KEY = f"Missing API key: send the header `Authorization: Bearer <key>`. {GET_A_KEY}"
INVALID_KEY = f"Invalid API key. {GET_A_KEY}"
KEY_IN_URL = (
    "API keys are not accepted in the URL (logs and traces would keep them): send the header"
    " `Authorization: Bearer <key>` instead, and consider this key exposed: create a new one."
)

# these only describe the schemes in /docs; the checks below make the messages
_bearer = HTTPBearer(auto_error=False, description="API key from `artisan users create NAME`")


async def _user_for_key(request: Request, api_key: str | None) -> User:
    if not api_key:
        raise _unauthorized(MISSING_KEY)
    fair_use, address = get_fair_use(request), client_address(request)
    fair_use.check_address(address)  # 429 while this address has sent too many invalid keys
    user = await find_user_by_api_key(await get_pool(request), api_key=api_key)
    if user is None:
        fair_use.record_auth_failure(address)
        raise _unauthorized(INVALID_KEY)
    fair_use.charge(user.id)  # 429 over the user's request budget
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
    if "api_key" in request.query_params:
        raise _unauthorized(KEY_IN_URL)
    return await _user_for_key(request, _bearer_key(request))


CurrentUser = Annotated[User, Depends(require_user)]


async def require_user_for_expensive(request: Request, user: CurrentUser) -> User:
    """The user, charged from the smaller budget of requests that make the system work hard."""
    get_fair_use(request).charge_expensive(user.id)
    return user


# chat, upload, search, context preview, import: each also spends from the expensive budget
ExpensiveUser = Annotated[User, Depends(require_user_for_expensive)]

ADMINS_ONLY = (
    "Only the admin of this Artisan can change its models: the local user of `artisan up`, or"
    " a user made one with `artisan users admin NAME`. Ask them."
)


async def require_admin(user: CurrentUser) -> User:
    if not user.is_admin:
        raise HTTPException(403, ADMINS_ONLY)
    return user


# changes what the whole instance runs (its models): the local user of `artisan up`, or named so
AdminUser = Annotated[User, Depends(require_admin)]
