"""The API's logs, metrics and traces (README, "Logs, metrics and traces").

- **Logs**: Litestar's structlog plugin with the configuration every process shares
  (models/observability/logs.py: JSON lines on stderr, secrets masked). `RequestLog` gives
  each request an id (a sane `X-Request-Id` from the caller, else a new one, echoed in the
  answer) and writes one `request` line when it is answered: method, route, status,
  duration; `bind_caller` (before the handler) adds the tenant, the client (or staff
  member) and the ids in the path to every line of the request. No body, header or query
  string is logged.
- **Metrics**: Litestar's Prometheus plugin counts requests and times them by route
  template and status (`parametric_api_requests_total`,
  `parametric_api_request_duration_seconds`, `parametric_api_requests_in_progress`,
  `parametric_api_requests_error_total`); `GET /metrics` serves them to operations staff
  (a scraper authenticates as a staff member with the operations role: docs/runbook.md),
  with gauges of what needs a person now, read from the database at a scrape
  (`OperationsGauges`: flagged settlements, held revisions, candidates about to lapse,
  pending and given-up deliveries, each with its count and the age of its oldest; their
  alerts: deploy/prometheus/alerts.yml).
  With `parametric api --workers N` the processes share PROMETHEUS_MULTIPROC_DIR.
- **Traces**: Litestar's OpenTelemetry plugin (HTTP server spans), only when tracing is on
  (models/observability/tracing.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import uuid
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.logging.config import StructLoggingConfig
from litestar.plugins.prometheus import PrometheusConfig
from litestar.plugins.structlog import StructlogConfig, StructlogPlugin
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Gauge, generate_latest, multiprocess

from api.auth.roles import Caller, callers
from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from models.observability.logs import bind, clear, configure_logging, get_logger
from models.settings import Settings

log = get_logger("parametric.http")
REQUEST_ID = "x-request-id"
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# Path parameters by the name ops search logs by.
_PATH_IDS = {"tenant_id", "quote_id", "policy_id", "coverage_id", "event_id", "endpoint_id", "partner_id",
             "file_id", "hold_id", "revision_id", "version"}


class ServiceLogging(StructLoggingConfig):
    """The structlog plugin's configuration: the project's (models/observability/logs.py),
    for this process named `api`; Litestar does not set up the standard library's logging
    on its own, nor log exceptions (api/problems.py logs what deserves it)."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(log_exceptions="never", pretty_print_tty=False)
        self.standard_lib_logging_config = None
        self._settings = settings

    def configure(self):
        configure_logging("api", self._settings.log_format, self._settings.log_level)
        return get_logger


def structlog_plugin(settings: Settings) -> StructlogPlugin:
    return StructlogPlugin(StructlogConfig(structlog_logging_config=ServiceLogging(settings), enable_middleware_logging=False))


def prometheus_config() -> PrometheusConfig:
    """Request counts and latency by route template (not the path: ids would explode the
    series) and status."""
    return PrometheusConfig(app_name="parametric-api", prefix="parametric_api", group_path=True,
                            exclude_unhandled_paths=True)


class OperationsGauges:
    """What needs a person now (models/db/operations_state.py), read at a scrape: the gauges
    the runbook's alerts hold a duration against (a settlement FLAGGED for more than a day,
    a revision held for a second data staff member, a candidate about to lapse, deliveries
    not going out or given up). Read at most every REFRESH_SECONDS per process (several
    Prometheus servers scraping do not multiply the reads); when the database does not
    answer, the last values stay and `parametric_operations_state_read_timestamp_seconds`
    stops moving (an alert watches it)."""

    REFRESH_SECONDS = 15.0

    def __init__(self) -> None:
        def gauge(name: str, text: str) -> Gauge:
            return Gauge(name, text, multiprocess_mode="mostrecent")

        self.gauges = {
            "settlements_flagged": gauge("parametric_settlements_flagged", "Coverages whose settlement is FLAGGED"),
            "flagged_period_ended_seconds": gauge(
                "parametric_settlement_flagged_period_ended_seconds",
                "Seconds since the period of the oldest FLAGGED settlement ended (flagged about 11 days after it)"),
            "revisions_held": gauge("parametric_observation_revisions_held",
                                    "Observation revisions held for a second data staff member"),
            "held_oldest_seconds": gauge("parametric_observation_revision_held_oldest_seconds",
                                         "Seconds since the oldest held observation revision was submitted"),
            "pricing_candidates": gauge("parametric_pricing_candidates", "Actuaries' reruns waiting to be published"),
            "candidate_lapse_soonest_seconds": gauge("parametric_pricing_candidate_lapse_soonest_seconds",
                                                     "Seconds until the first waiting candidate lapses"),
            "deliveries_pending": gauge("parametric_webhook_deliveries_pending", "Webhook deliveries not yet delivered"),
            "pending_oldest_seconds": gauge("parametric_webhook_delivery_pending_oldest_seconds",
                                            "Seconds since the oldest pending webhook delivery was made"),
            "deliveries_failed_day": gauge("parametric_webhook_deliveries_failed_last_day",
                                           "Webhook deliveries given up (FAILED) in the last 24 hours"),
        }
        self.read_at = gauge("parametric_operations_state_read_timestamp_seconds",
                             "Unix time of the last read of these gauges from the database")
        self._last = 0.0

    async def refresh(self) -> None:
        from models.db.operations_state import operations_state
        from models.temporal.pricing import CANDIDATE_LIFETIME_SECONDS

        if time.monotonic() - self._last < self.REFRESH_SECONDS:
            return
        try:
            state = await asyncio.wait_for(operations_state(CANDIDATE_LIFETIME_SECONDS), 5)
        except Exception:  # noqa: BLE001 - the database down: the request metrics still answer
            log.warning("operations gauges not refreshed", exc_info=True)
            return
        self._last = time.monotonic()
        for field, gauge in self.gauges.items():
            gauge.set(getattr(state, field))
        self.read_at.set(time.time())


STATE = OperationsGauges()


class MetricsController(Controller):
    """`GET /metrics`: Prometheus text of this API process (all of them with
    PROMETHEUS_MULTIPROC_DIR). An operations endpoint: operations staff only."""

    opt = callers(Caller.OPERATIONS)
    path = "/metrics"
    tags = ["Operations"]
    parameters = tenant_header()

    @get(operation_id="getMetrics", summary="Prometheus metrics of the API (operations staff)",
         description="Request counts and latency histograms by route and status (text exposition format). "
                     "Scrape it as a staff member with the operations role (docs/runbook.md).",
         media_type=CONTENT_TYPE_LATEST, responses=problems(*AUTHED))
    async def metrics(self) -> Response[bytes]:
        await STATE.refresh()
        registry = REGISTRY
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE_ID.match(text):
                return text
            break
    return uuid.uuid4().hex


class RequestLog:
    """The app's outermost ASGI layer (api/app.py): a request id for every line of the
    request, and one `request` line when it is answered (unknown paths and refusals too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        clear()
        bind(request_id=request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            user = scope.get("user")
            extra: dict[str, Any] = {}
            if isinstance(user, Principal):
                extra = {"tenant_id": user.tenant_id, "client_id": user.client_id}
                if user.staff:
                    extra["staff"] = user.name
            (log.warning if status >= 500 else log.info)(
                "request", method=scope["method"], route=scope.get("path_template"), path=scope["path"],
                status=status, duration_ms=round((time.perf_counter() - started) * 1000, 2), **extra,
            )


def answered_errors(app: ASGIApp) -> ASGIApp:
    """Middleware that turns what the middleware inside it raise (401, 403, 429, 415...) into
    their problem answers there, as Litestar does for handlers, so the Prometheus middleware
    outside counts them by their status (it would count a raised refusal as a 200).
    Litestar's own exception wrapper (pinned 2.25)."""
    from litestar._asgi.utils import wrap_in_exception_handler

    return wrap_in_exception_handler(app=app)


async def bind_caller(request: Request) -> None:
    """`before_request`: the caller and the path's ids on every line the handler logs (a
    coroutine: Litestar would run a plain function in a thread, whose context is lost)."""
    user = request.scope.get("user")
    fields = {name: str(value) for name, value in request.path_params.items() if name in _PATH_IDS}
    if isinstance(user, Principal):
        fields["tenant_id"] = user.tenant_id
        fields["client_id"] = user.client_id
        if user.staff:
            fields["staff"] = user.name
    if fields:
        bind(**fields)
    return None


def tracing_plugins() -> list:
    """Litestar's OpenTelemetry plugin when tracing is on: the request's server span, parent
    of the Temporal client's spans and of the database's."""
    from models.observability.tracing import tracing_enabled

    if not tracing_enabled():
        return []
    from litestar.plugins.opentelemetry import OpenTelemetryConfig, OpenTelemetryPlugin

    return [OpenTelemetryPlugin(OpenTelemetryConfig())]

