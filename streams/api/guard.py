"""What every request must pass before routing, and how a refusal is answered.

- No NUL character anywhere in the path or the query: Postgres text cannot hold one, so
  it is a bad request (400) naming where it was, not a database failure.
- Without a token the app serves this machine only, so the Host a request names must be
  loopback (``localhost``, ``127.0.0.1``, ``[::1]``): a page on another site that points
  its own name at 127.0.0.1 (DNS rebinding) would otherwise read every tenant and
  redrive dead letters. With a token, the token decides (streams/api/auth.py).

Errors are JSON ``{"error", "status"}`` under /api and a short page elsewhere.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from streams.api.auth import is_api, is_loopback
from streams.api.html import page, tag
from streams.api.jsonable import Json


def error_response(path: str, status: int, message: str) -> Response:
    if is_api(path):
        return Json({"error": message, "status": status}, status_code=status)
    body = page(f"{status}", tag("p", message, class_="error"))
    return HTMLResponse(str(body), status_code=status)


def host_name(host_header: str) -> str:
    """The name of a Host header without its port (``[::1]:8765`` -> ``::1``)."""
    host = host_header.strip()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def nul_in(request: Request) -> str | None:
    """Where a NUL character is in the request, if anywhere."""
    if "\x00" in request.scope["path"]:
        return "the path"
    query = request.scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(query, keep_blank_values=True):
        if "\x00" in name or "\x00" in value:
            return f"the query parameter {name.replace(chr(0), '')!r}"
    return None


class RequestGuard:
    """ASGI middleware refusing, before routing, what no handler may see (above)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await error_response(scope["path"], *refusal)(scope, receive, send)

    def _refusal(self, request: Request) -> tuple[int, str] | None:
        where = nul_in(request)
        if where is not None:
            return 400, f"a NUL character is not allowed, found in {where}"
        host = host_name(request.headers.get("host", ""))
        # No Host at all is no browser, and only a browser can be rebound.
        if self.token is None and host and not is_loopback(host):
            return 403, (
                f"without FACTSTREAM_API_TOKEN this server answers only to localhost, not"
                f" to the host {host!r}: open it as http://127.0.0.1:<port>/ or set a token"
            )
        return None
