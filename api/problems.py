"""Every error as RFC 9457 problem details (`application/problem+json`).

One module maps Litestar's HTTP exceptions, validation errors, domain errors and anything
unexpected to a problem body; a 500 never carries a stack trace.
"""

from __future__ import annotations

import logging
import re
import socket
import sqlite3
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from temporalio.client import RPCTimeoutOrCancelledError
from temporalio.service import RPCError, RPCStatusCode

from models.wire.common import FieldError, Problem

log = logging.getLogger("parametric.api")

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "https://parametric.example/problems/"


class DomainError(Exception):
    """An error the API reports as-is: status, a stable type slug, a human detail."""

    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(
        self,
        detail: str,
        *,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
        extensions: dict[str, Any] | None = None,
    ):
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}
        # RFC 9457 extension members beside the standard ones (a capacity refusal's limit)
        self.extensions = extensions or {}


class InvalidInput(DomainError):
    status, slug, title = 400, "invalid-input", "Invalid input"

    @classmethod
    def of_field(cls, field: str, message: str) -> "InvalidInput":
        """A 400 naming one field: `detail` "<field>: <message>" and `errors` [{field, message}]."""
        return cls(f"{field}: {message}", errors=[FieldError(field=field, message=message)])


class NotFound(DomainError):
    status, slug, title = 404, "not-found", "Resource not found"


class Conflict(DomainError):
    status, slug, title = 409, "conflict", "Conflict with the current state"


class Unavailable(DomainError):
    status, slug, title = 503, "unavailable", "Service unavailable"


# One title per problem type, whichever path raised it.
TITLES = {
    "invalid-input": "Invalid input",
    "unauthorized": "Unauthorized",
    "forbidden": "Forbidden",
    "not-found": "Resource not found",
    "method-not-allowed": "Method not allowed",
    "conflict": "Conflict with the current state",
    "payload-too-large": "Request body too large",
    "unsupported-media-type": "Unsupported media type",
    "idempotency-key-reused": "Idempotency-Key reused with another body",
    "capacity-exceeded": "Capacity limit exceeded",
    "rate-limited": "Too many requests",
    "internal-error": "Internal server error",
    "unavailable": "Service unavailable",
}

_SLUGS = {
    400: "invalid-input",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    413: "payload-too-large",
    415: "unsupported-media-type",
    422: "unprocessable",
    429: "rate-limited",
    500: "internal-error",
    503: "unavailable",
}


def problem_response(
    request: Request,
    status: int,
    detail: str | None,
    *,
    slug: str | None = None,
    title: str | None = None,
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Response[Any]:
    slug = slug or _SLUGS.get(status, "error")
    body = Problem(
        type=TYPE_BASE + slug,
        title=TITLES.get(slug) or title or HTTPStatus(status).phrase,
        status=status,
        detail=detail,
        instance=request.url.path,
        errors=errors or None,
    )
    content = (
        _EXTENDED.encode({**msgspec.to_builtins(body), **extensions}) if extensions else msgspec.json.encode(body)
    )
    return Response(
        content=content,
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


_EXTENDED = msgspec.json.Encoder(decimal_format="number")  # money in extension members: exact numbers


_AT = re.compile(r"\s*-\s*at `\$(?P<path>[^`]*)`\s*$")
_MISSING = re.compile(r"missing required field `(?P<field>[^`]+)`")


_MONEY_PART = re.compile(r"(amount|currency)\b")


def field_of(message: str, fallback: str) -> tuple[str, str]:
    """msgspec says where: "Expected `int` - at `$.address.city`" → ("address.city", "Expected `int`")."""
    field = "" if fallback == "body" else fallback
    match = _AT.search(message)
    if match:
        field = match.group("path").lstrip(".").replace("[", ".").replace("]", "")
        message = message[: match.start()]
    missing = _MISSING.search(message)
    if missing:
        field = f"{field}.{missing.group('field')}" if field else missing.group("field")
    lead = _MONEY_PART.match(message)
    if lead and field and not field.endswith(lead.group(1)):
        field = f"{field}.{lead.group(1)}"  # Money's own checks: "amount must not be negative" → sumInsured.amount
    return field or fallback, message.strip()


def _wire_name(request: Request | None, key: str) -> str:
    """The name a client sent: a query parameter's alias (`from`), not the handler's
    argument name (`period_from`)."""
    try:
        field = request.route_handler.parsed_fn_signature.parameters[key]  # type: ignore[union-attr]
        kwarg = field.kwarg_definition
        return getattr(kwarg, "query", None) or getattr(kwarg, "header", None) or getattr(kwarg, "name", None) or key
    except (AttributeError, KeyError, TypeError):
        return key


def _field_errors(extra: Any, request: Request | None = None) -> list[FieldError] | None:
    if not isinstance(extra, list):
        return None
    errors = []
    for item in extra:
        if isinstance(item, dict) and "message" in item:
            key = item.get("key")
            fallback = "body" if key in (None, "data") else _wire_name(request, str(key))
            field, message = field_of(str(item["message"]), fallback)
            errors.append(FieldError(field=field, message=message))
    return errors or None


def _body_errors(request: Request) -> list[FieldError] | None:
    """Every bad field of the refused JSON body, in words (api/validation.py), when the
    handler takes a Struct body; None when that cannot be said (no body, not JSON)."""
    from api.validation import body_errors, own_check_errors, struct_of

    body = getattr(getattr(request, "_connection_state", None), "body", None)
    if not isinstance(body, (bytes, bytearray)) or not body:
        return None
    try:
        parameter = request.route_handler.parsed_fn_signature.parameters.get("data")  # type: ignore[union-attr]
        struct = struct_of(parameter.annotation) if parameter is not None else None
        data = msgspec.json.decode(body) if struct is not None else None
    except (AttributeError, msgspec.DecodeError):
        return None
    if struct is None:
        return None
    return body_errors(struct, data) or own_check_errors(struct, data) or None


def handle_validation(request: Request, exc: ValidationException) -> Response[Any]:
    errors = _body_errors(request) or _field_errors(exc.extra, request)
    detail = exc.detail if exc.detail and exc.detail != "Bad Request" else "The request is not valid"
    if errors and len(errors) > 1:
        detail = f"{len(errors)} fields are not valid: " + "; ".join(f"{e.field} {e.message}" for e in errors)
    if errors and len(errors) == 1:
        detail = f"{errors[0].field}: {errors[0].message}" if errors[0].field != "body" else errors[0].message
        if errors[0].message in ("'data'", "data"):
            detail, errors = "a JSON request body is required", [FieldError(field="body", message="required")]
    return problem_response(request, 400, detail.strip(), slug="invalid-input", errors=errors)


def handle_http(request: Request, exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    if status >= 500:
        log.error("HTTP %s on %s: %s", status, request.url.path, exc.detail)
        return problem_response(request, status, "The server could not complete the request.")
    detail = exc.detail or HTTPStatus(status).phrase
    if status == 413:
        detail = "The request body is too large."
    return problem_response(
        request, status, str(detail).strip(), errors=_field_errors(exc.extra), headers=exc.headers or None
    )


def handle_domain(request: Request, exc: DomainError) -> Response[Any]:
    return problem_response(
        request, exc.status, exc.detail, slug=exc.slug, title=exc.title, errors=exc.errors, headers=exc.headers or None,
        extensions=exc.extensions or None,
    )


def handle_recursion(request: Request, exc: RecursionError) -> Response[Any]:
    return problem_response(request, 400, "The JSON body is nested too deeply.", slug="invalid-input")


def handle_unicode(request: Request, exc: UnicodeError) -> Response[Any]:
    return problem_response(request, 400, "The request body is not valid UTF-8.", slug="invalid-input")


def handle_temporal(request: Request, exc: RPCError) -> Response[Any]:
    """Temporal unreachable or too slow is a 503 the client can retry; anything else a 500."""
    if exc.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED) or (
        "timeout" in str(exc).lower()
    ):
        log.warning("Temporal unavailable on %s: %s", request.url.path, exc)
        return problem_response(
            request, 503, "The workflow engine did not answer in time; retry shortly.", headers={"Retry-After": "2"}
        )
    return handle_unexpected(request, exc)


def handle_temporal_deadline(request: Request, exc: RPCTimeoutOrCancelledError) -> Response[Any]:
    """An update or query the SDK gave up on at its RPC deadline (a busy or stalled worker):
    the workflow may still finish it, and a retry with the same Idempotency-Key finds it."""
    log.warning("Temporal call timed out on %s: %s", request.url.path, exc)
    return problem_response(
        request, 503, "The workflow engine did not answer in time; retry shortly.", headers={"Retry-After": "2"}
    )


def handle_timeout(request: Request, exc: TimeoutError) -> Response[Any]:
    log.warning("timed out on %s", request.url.path)
    return problem_response(request, 503, "The request did not complete in time; retry shortly.", headers={"Retry-After": "2"})


DATABASE_RETRY_AFTER = "5"  # seconds: a restart or failover of the database takes about that
# sqlite3.OperationalError says more than "unreachable" (a bad statement is one too): these
# are the ones that mean the file cannot be used now.
_SQLITE_DOWN = ("unable to open database file", "disk i/o error", "database is locked", "readonly database")


def _database_down(exc: Exception) -> bool:
    """Whether `exc` says the database cannot be reached or used now, rather than refusing a
    statement: a connection refused, reset or closed (asyncpg's connection and
    operator-intervention errors: a server shutting down or starting up, too many
    connections), or a SQLite file that cannot be opened or written."""
    if isinstance(exc, sqlite3.OperationalError):
        message = str(exc).lower()
        return any(words in message for words in _SQLITE_DOWN)
    if _ASYNCPG is not None and isinstance(exc, _ASYNCPG.InterfaceError):
        message = str(exc).lower()
        return "closed" in message or "closing" in message
    return True


def handle_database_unavailable(request: Request, exc: Exception) -> Response[Any]:
    """The database down (reads and writes alike) is a 503 the client can retry, never a 500."""
    if not _database_down(exc):
        return handle_unexpected(request, exc)
    log.warning("database unavailable on %s: %s: %s", request.url.path, type(exc).__name__, exc)
    return problem_response(
        request, 503, "The database is not reachable; retry shortly.", headers={"Retry-After": DATABASE_RETRY_AFTER}
    )


def handle_unexpected(request: Request, exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem_response(request, 500, "The server could not complete the request.")


try:  # the PostgreSQL driver (installed with the service; absent, only SQLite is in use)
    import asyncpg.exceptions as _ASYNCPG
except ImportError:  # pragma: no cover
    _ASYNCPG = None

# Connection failures of the database drivers (and of any socket a request waits on).
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.OperationalError, ConnectionError, socket.gaierror) + (
    (
        _ASYNCPG.PostgresConnectionError,
        _ASYNCPG.OperatorInterventionError,
        _ASYNCPG.TooManyConnectionsError,
        _ASYNCPG.InterfaceError,
    )
    if _ASYNCPG is not None
    else ()
)

EXCEPTION_HANDLERS = {
    ValidationException: handle_validation,
    HTTPException: handle_http,
    DomainError: handle_domain,
    RecursionError: handle_recursion,
    UnicodeError: handle_unicode,
    RPCError: handle_temporal,
    RPCTimeoutOrCancelledError: handle_temporal_deadline,
    TimeoutError: handle_timeout,
    **{error: handle_database_unavailable for error in DATABASE_ERRORS},
    Exception: handle_unexpected,
}
