"""The studio's door: an access token given once in the printed address, then kept in an
HttpOnly, SameSite=Strict cookie; a checked Host header (no DNS rebinding).

An ASGI middleware, so every HTTP and websocket request passes it, whatever the route.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlencode

COOKIE = "deepsim_studio"

#: host names a loopback server answers to
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def new_token() -> str:
    """A fresh random access token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port (``[::1]:8000`` -> ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """ASGI middleware refusing (403) every request without the token's cookie or with a
    Host header other than ``hosts``.

    A request whose query holds ``token=<token>`` gets the cookie and a redirect to the
    same address without the token (so it leaves the address bar and the history).
    """

    def __init__(self, app, token: str, hosts: Iterable[str]):
        self.app = app
        self.token = token
        self.hosts = {h.lower().strip("[]") for h in hosts}

    def _has_cookie(self, headers: dict[bytes, bytes]) -> bool:
        raw = headers.get(b"cookie", b"").decode("latin-1")
        try:
            jar = SimpleCookie(raw)
        except CookieError:     # a malformed cookie header is no cookie
            return False
        c = jar.get(COOKIE)
        return c is not None and secrets.compare_digest(c.value, self.token)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        if host not in self.hosts:
            return await self._refuse(scope, send, "Host not allowed: the studio answers only "
                                      "to its own address")
        if self._has_cookie(headers):
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [""])[0]
        if scope["type"] == "http" and given and secrets.compare_digest(given, self.token):
            rest = {k: v for k, v in query.items() if k != "token"}
            location = scope.get("path", "/") + (("?" + urlencode(rest, doseq=True))
                                                 if rest else "")
            cookie = (f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/")
            await send({"type": "http.response.start", "status": 303,
                        "headers": [(b"location", location.encode("latin-1")),
                                    (b"set-cookie", cookie.encode("latin-1")),
                                    (b"cache-control", b"no-store")]})
            await send({"type": "http.response.body", "body": b""})
            return None
        return await self._refuse(scope, send, "Forbidden: open the address with the token "
                                  "that `deepsim studio` printed")

    async def _refuse(self, scope, send, message: str):
        if scope["type"] == "websocket":
            # closing before accepting: the server answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008})
            return
        body = message.encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
