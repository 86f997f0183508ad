"""Headers on every answer (a `before_send` hook, so errors and unknown paths get them too):

- `X-Content-Type-Options: nosniff`;
- `Cache-Control: no-store` on every path that takes credentials (what an authenticated
  caller reads is not for a shared or a browser cache; the token endpoint says it itself);
- the RateLimit fields of the tightest limit the request met (api/ratelimit.py), or of its
  address's limit when it met none;
- no `server` banner (uvicorn's own is turned off where the API is served: api/cli.py).
"""

from __future__ import annotations

import re

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

from api.auth.middleware import PUBLIC_PATHS
from api.peer import peer_key

_PUBLIC = re.compile("|".join(PUBLIC_PATHS))


async def response_headers(message: Message, scope: Scope) -> None:
    if message["type"] != "http.response.start" or scope["type"] != "http":
        return
    headers = MutableScopeHeaders.from_message(message)
    headers["X-Content-Type-Options"] = "nosniff"
    if not _PUBLIC.match(scope["path"]):
        headers["Cache-Control"] = "no-store"
    if "server" in headers:
        del headers["server"]
    if "ratelimit-limit" not in headers:
        state = scope.get("state", {})
        quota = state.get("rate_quota")
        if quota is None:
            limits = getattr(scope["app"].state, "limits", None)
            quota = limits.peer.peek(peer_key(scope)) if limits is not None else None
        if quota is not None:
            for name, value in quota.headers().items():
                headers[name] = value
