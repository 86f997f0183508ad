"""What every operation of the OpenAPI document also says (issue 29, API docs), in one place:

* the answers any call can get: 429 (a rate limit; `Retry-After` says when to try again) and
  500 (an unexpected error, logged under the request's id), and 415 on an operation with a
  JSON body (api/content_type.py refuses any other media type);
* the `Idempotency-Key` header, on the operations that honour it (`IDEMPOTENT`);
* the token endpoint's form body (it reads the form itself, to answer OAuth 2.0 errors);
* examples: every request body's (the README's bodies; tests/api/test_openapi_examples.py
  converts each into its Struct, so they stay valid) and every problem answer's.

`document(app)` sets `DocumentedOperation` as each route handler's `operation_class` before the
document is first built (Litestar builds it lazily, on the first /schema request)."""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.plugins import OpenAPISchemaPlugin
from litestar.openapi.spec import (
    Example,
    OpenAPIMediaType as MediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType

from api.problems import PROBLEM_JSON, TITLES, TYPE_BASE

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator
    from litestar.typing import FieldDefinition

# Operations that replay their first answer for a repeated Idempotency-Key (api/idempotency.py,
# api/lifecycle.py). tests/api/test_openapi_examples.py checks this against the handlers.
IDEMPOTENT = frozenset({
    "createQuote", "convertQuote", "rejectQuote", "activatePolicy", "cancelPolicy",
    "createBusinessPartner", "acceptInternalQuote", "rejectInternalQuote", "createInternalPolicy",
    "acceptInternalPolicy",
})
TOKEN_OPERATION = "issueToken"

_IDEMPOTENCY_HEADER = Parameter(
    name="Idempotency-Key",
    param_in="header",
    required=False,
    description="Makes a retry safe: a repeated key answers the first call's answer (1-200 printable "
    "characters; the same key with another body is a 422)",
    schema=Schema(type=OpenAPIType.STRING, min_length=1, max_length=200),
    examples={"retry": Example(value="crop-loan-4711-quote-1")},
)

_TOKEN_FORM = RequestBody(
    required=True,
    description="OAuth 2.0 client credentials (RFC 6749 §4.4); the client id and secret may come in an "
    "HTTP Basic Authorization header instead",
    content={
        "application/x-www-form-urlencoded": MediaType(
            schema=Schema(
                type=OpenAPIType.OBJECT,
                required=["grant_type", "client_id", "client_secret"],
                properties={
                    "grant_type": Schema(type=OpenAPIType.STRING, enum=["client_credentials"]),
                    "client_id": Schema(type=OpenAPIType.STRING, description="the client id `tenants create` printed"),
                    "client_secret": Schema(type=OpenAPIType.STRING, description="its secret"),
                    "scope": Schema(type=OpenAPIType.STRING, description="the scope `tenants create` printed"),
                },
            ),
            examples={
                "client credentials": Example(value={
                    "grant_type": "client_credentials",
                    "client_id": "0b9f7c3e-5d1a-4f4e-9c39-2a6f3f3b8a10",
                    "client_secret": "s3cr3t-from-tenants-create",
                    "scope": "api://parametric/.default",
                })
            },
        )
    },
)

# One real-looking problem per status: the titles and types the API answers (api/problems.py).
_PROBLEM_DETAILS: dict[int, tuple[str, dict[str, Any]]] = {
    400: ("monitoringTargetId: required field missing; riskPeriodFrom: required field missing", {
        "errors": [
            {"field": "monitoringTargetId", "message": "required field missing"},
            {"field": "riskPeriodFrom", "message": "required field missing"},
        ]}),
    401: ("the access token has expired", {}),
    403: ("this route is for operations staff", {}),
    404: ("quote 6f1c2a7e-3b7d-4d1e-9a52-0c2b8e4f9d11 does not exist", {}),
    409: ("the quote is ACCEPTED: it cannot be rejected", {}),
    413: ("the body is larger than 1048576 bytes", {}),
    415: ("send the body as application/json", {}),
    422: ("Idempotency-Key reused with another body", {}),
    429: ("too many requests: 100 a second, bursts of 200; retry in 1 s", {}),
    500: ("unexpected error; request id 5f0e8b2c9d1a4e7b8c3d2a1f0e9d8c7b", {}),
    503: ("the database is unavailable; retry in 5 s", {}),
}
_SLUGS = {400: "invalid-input", 401: "unauthorized", 403: "forbidden", 404: "not-found", 409: "conflict",
          413: "payload-too-large", 415: "unsupported-media-type", 422: "idempotency-key-reused",
          429: "rate-limited", 500: "internal-error", 503: "unavailable"}
_ADDED = {
    415: "The body is not application/json",
    429: "Rate limited (per client, per address, or the tenant's pricing quota); Retry-After says when to retry",
    500: "Unexpected error (logged with the request id)",
}


def problem_example(status: int) -> dict[str, Any]:
    """A problem+json body of `status` as the API answers it."""
    detail, extra = _PROBLEM_DETAILS[status]
    slug = _SLUGS[status]
    return {"type": TYPE_BASE + slug, "title": TITLES.get(slug, HTTPStatus(status).phrase), "status": status,
            "detail": detail, **extra}


def _problem_response(status: int) -> OpenAPIResponse:
    return OpenAPIResponse(
        description=_ADDED.get(status, HTTPStatus(status).phrase),
        content={PROBLEM_JSON: MediaType(schema=Reference(ref="#/components/schemas/Problem"),
                                         examples={HTTPStatus(status).phrase: Example(value=problem_example(status))})},
    )


def _body_schema_name(body: RequestBody | Reference | None) -> str | None:
    """The component a JSON request body refers to (directly, or in a oneOf with null)."""
    if not isinstance(body, RequestBody):
        return None
    media = body.content.get("application/json")
    if media is None:
        return None
    schema = media.schema
    refs = [schema] if isinstance(schema, Reference) else [s for s in (getattr(schema, "one_of", None) or [])
                                                               if isinstance(s, Reference)]
    return refs[0].ref.rsplit("/", 1)[-1] if refs else None


@dataclass
class DocumentedOperation(Operation):
    """An operation with the answers, header, body and examples the module docstring lists."""

    def __post_init__(self) -> None:
        from api.openapi_examples import ANSWERS, REQUEST_EXAMPLES, RESPONSE_EXAMPLES

        responses = self.responses if self.responses is not None else {}
        if self.operation_id == TOKEN_OPERATION:
            self.request_body = _TOKEN_FORM
        name = _body_schema_name(self.request_body)
        if name is not None:
            # while the document is built, a component is named by its module path too
            examples = next((v for k, v in REQUEST_EXAMPLES.items() if name == k or name.endswith(f"_{k}")), {})
            media = self.request_body.content["application/json"]  # type: ignore[union-attr]
            media.examples = {title: Example(value=value) for title, value in examples.items()} or None
            responses.setdefault("415", _problem_response(415))
        for status in (429, 500):
            responses.setdefault(str(status), _problem_response(status))
        recorded = ANSWERS.get(self.operation_id or "")
        for code, response in responses.items():  # real answers where one was recorded
            media = response.content.get("application/json") if isinstance(response, OpenAPIResponse) and response.content else None
            schema = getattr(media, "schema", None)
            if recorded and media is not None and code in recorded and not media.examples:
                media.examples = {"recorded from the service": Example(value=recorded[code])}
                continue
            if code.startswith("2") and isinstance(schema, Reference) and not media.examples:
                name = schema.ref.rsplit("/", 1)[-1]
                found = next((v for k, v in RESPONSE_EXAMPLES.items() if name == k or name.endswith(f"_{k}")), None)
                if found:
                    media.examples = {title: Example(value=value) for title, value in found.items()}
        for code, response in responses.items():
            if isinstance(response, OpenAPIResponse) and response.content and PROBLEM_JSON in response.content:
                media = response.content[PROBLEM_JSON]
                if not media.examples and code.isdigit() and int(code) in _PROBLEM_DETAILS:
                    media.examples = {HTTPStatus(int(code)).phrase: Example(value=problem_example(int(code)))}
        self.responses = responses
        if self.operation_id in IDEMPOTENT:
            self.parameters = [*(self.parameters or []), _IDEMPOTENCY_HEADER]


class DecimalSchemaPlugin(OpenAPISchemaPlugin):
    """Exact decimals (money amounts, rates, index values) as the API really carries them: a
    JSON number in every answer (api/responses.py writes Decimals as numbers) and a number or
    a string in a request (msgspec reads both). Litestar documented them as strings only, so
    generated clients typed `amount: str` and mis-read every answer."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return isinstance(value, type) and issubclass(value, Decimal)

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: SchemaCreator) -> Schema:
        return Schema(
            one_of=[Schema(type=OpenAPIType.NUMBER), Schema(type=OpenAPIType.STRING, pattern=r"^-?\d+(\.\d+)?$")],
            description="an exact decimal: a JSON number in answers; a number or a decimal string in requests",
        )


def document(app: Litestar) -> None:
    """Every route handler of `app` builds its operation as a DocumentedOperation."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if isinstance(handler, HTTPRouteHandler) and handler.operation_class is Operation:
                handler.operation_class = DocumentedOperation
