"""JSON endpoints take JSON: a body of another media type is a 415, not a guess."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from api.problems import DomainError

BODY_METHODS = {"POST", "PUT", "PATCH"}


class UnsupportedMediaType(DomainError):
    status, slug, title = 415, "unsupported-media-type", "Unsupported media type"


def _has_body(headers: dict[bytes, bytes]) -> bool:
    length = headers.get(b"content-length")
    return (length is not None and length.strip() not in (b"", b"0")) or b"transfer-encoding" in headers


class RequireJSON(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        # The token endpoint is form-encoded, as OAuth 2.0 prescribes.
        if scope["method"] in BODY_METHODS and not scope["path"].startswith("/auth/"):
            headers = dict(scope["headers"])
            if _has_body(headers):
                media = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
                if media != b"application/json" and not media.endswith(b"+json"):
                    raise UnsupportedMediaType("send the body as application/json")
        await next_app(scope, receive, send)
