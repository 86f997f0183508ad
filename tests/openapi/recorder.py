"""Records real answers of the service as the OpenAPI document's response examples.

With `OPENAPI_RECORD_EXAMPLES=FILE` set, the suite's HTTP client (tests/conftest.py `http`)
keeps the first 2xx JSON answer of every operation and status it calls (matched to its operationId by the
document's path templates) and writes them to FILE at the end of the session: what
api/openapi_response_examples.json holds (`make openapi-examples`). Long lists are shortened to
their first two items (the example's title says so). Off by default."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx

FILE = os.environ.get("OPENAPI_RECORD_EXAMPLES")


class Recorder:
    def __init__(self, doc: dict) -> None:
        self.routes = []
        for path, ops in doc["paths"].items():
            pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")
            for method, op in ops.items():
                self.routes.append((method.upper(), pattern, op["operationId"], path.count("{")))
        self.routes.sort(key=lambda r: r[3])  # literal segments before templates (/quotes/x before /quotes/{id})
        self.answers: dict[str, dict] = {}

    async def __call__(self, response: httpx.Response) -> None:
        request = response.request
        if not 200 <= response.status_code < 300 or "json" not in response.headers.get("content-type", ""):
            return
        for method, pattern, operation, _ in self.routes:
            if method == request.method and pattern.match(request.url.path):
                answers = self.answers.setdefault(operation, {})
                if str(response.status_code) not in answers:  # the first answer of each status
                    await response.aread()
                    answers[str(response.status_code)] = _shorten(response.json())
                return

    def write(self, path: str) -> None:
        """Into `path`, over what it holds (a run of a few test files adds to a whole run's)."""
        target = Path(path)
        merged = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
        for operation, answers in self.answers.items():
            merged.setdefault(operation, {}).update(answers)
        target.write_text(json.dumps(dict(sorted(merged.items())), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# Values never written into the repository, whatever test made them.
SECRET_KEYS = {"access_token", "client_secret", "secret", "api_key", "apiKey", "signingSecret", "previousSecret"}


def _shorten(value, depth: int = 0):
    if isinstance(value, list):
        return [_shorten(v, depth + 1) for v in value[:2]]
    if isinstance(value, dict):
        return {k: ("<redacted: shown once>" if k in SECRET_KEYS and isinstance(v, str) else _shorten(v, depth + 1))
                for k, v in value.items()}
    return value
