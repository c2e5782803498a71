"""Who may read: loopback by default; a bearer token whenever one is set, and always when
the server binds anything else than loopback (it refuses to start without one).

The token is accepted as ``Authorization: Bearer <token>`` (API clients) or as the
``factstream_token`` cookie that opening any page (not /api/) with ``?token=<token>`` sets
(browsers cannot send a header on navigation; the redirect takes the token out of the
URL again). The cookie is HttpOnly and SameSite=Strict, so
another site's page cannot make the browser use it.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from streams.api.jsonable import Json
from streams.errors import ConfigError

COOKIE = "factstream_token"
# What a path may keep unescaped in a redirect: no backslash, which browsers read as "/".
_PATH_SAFE = "/:@!$&'()*+,;=~-._"


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def same_site_location(path: str, query: str) -> str:
    """A Location on this server only: ``//evil.example/`` (or ``/\\evil.example``) would
    send the browser, and its token, to another site."""
    location = "/" + quote(path, safe=_PATH_SAFE).lstrip("/")
    return f"{location}?{query}" if query else location


def is_loopback(address: str) -> bool:
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: assume it is reachable from elsewhere


def check_exposure(bind_address: str, token: str | None) -> None:
    """Refuse to serve beyond this machine without a token."""
    if token is None and not is_loopback(bind_address):
        raise ConfigError(
            f"the read API would listen on {bind_address} without a token: set"
            " FACTSTREAM_API_TOKEN (clients send 'Authorization: Bearer <token>'), or bind"
            " 127.0.0.1"
        )


class BearerToken:
    """ASGI middleware: every HTTP request needs the token, when one is set."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    def _matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token_bytes)

    @property
    def token_bytes(self) -> bytes:
        return (self.token or "").encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        header = request.headers.get("authorization", "")
        scheme, _, credential = header.partition(" ")
        if (scheme.lower() == "bearer" and self._matches(credential.strip())) or self._matches(
            request.cookies.get(COOKIE)
        ):
            await self.app(scope, receive, send)
            return
        response = self._refusal(request)
        await response(scope, receive, send)

    def _refusal(self, request: Request) -> Response:
        given = request.query_params.get("token")
        api = is_api(request.url.path)
        if request.method == "GET" and not api and self._matches(given):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = same_site_location(request.scope["path"], urlencode(rest))
            redirect = RedirectResponse(target, status_code=303)
            redirect.set_cookie(COOKIE, self.token or "", httponly=True, samesite="strict")
            return redirect
        message = "a bearer token is required: send 'Authorization: Bearer <token>'"
        if api:
            return Json(
                {"error": message, "status": 401},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        return HTMLResponse(
            "<!doctype html><title>factstream: token required</title><p>This Playground needs"
            " its token: open it with <code>?token=...</code> (printed by <code>factstream"
            " console</code>).</p>",
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
