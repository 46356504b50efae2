"""The API key in front of paperchat's HTTP faces: `Authorization: Bearer <key>` or 401.

`BearerGuard` wraps any ASGI app (the `/v1` endpoint, the MCP server over HTTP). With no key configured it
lets everything through, as those faces bind 127.0.0.1 by default. The key is compared in constant time and
never logged; a refusal logs only the client's address and the path.
"""

from __future__ import annotations

import hmac
import json
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BearerGuard", "error_body"]

log = logging.getLogger(__name__)


def error_body(message: str, kind: str = "invalid_request_error", code: str | None = None) -> bytes:
    """An error in the shape OpenAI's API gives it: `{"error": {"message", "type", "param", "code"}}`."""
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}}).encode()


class BearerGuard:
    """Requires `Authorization: Bearer <key>` on every HTTP request to `app` when `key` is not empty."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self._key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._key or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        client = scope.get("client") or ("?", 0)
        log.warning("refused a request to %s from %s: missing or wrong API key", scope.get("path"), client[0])
        body = error_body(
            "missing or wrong API key: send the header 'Authorization: Bearer <key>' "
            "with the key set in PAPERCHAT_SERVE__API_KEY",
            code="invalid_api_key",
        )
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="paperchat"'),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, token = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._key)
        return False
