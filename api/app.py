"""The Litestar application: three surfaces over one domain, assembled in one place."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from litestar import Litestar
from piccolo.engine.finder import engine_finder
from litestar.datastructures import State
from litestar.di import Provide
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from temporalio.client import Client

from api.auth.controller import TokenController, jwks
from api.capacity.controller import CapacityLimitController
from api.bordereaux.controller import BordereauxController
from api.portfolio.controller import PortfolioController
from api.auth.middleware import PUBLIC_PATHS, AuthMiddleware
from api.auth.roles import authorize, undeclared
from api.auth.tokens import TokenService
from api.catalogue.controller import IndexDefinitionController, PincodeMappingController
from api.catalogue.coverages import CoverageController
from api.catalogue.service import NonViableSlots
from api.admission import PricingAdmission, SharedAdmissions
from api.content_type import RequireJSON
from api.headers import response_headers
from api.deps import provide_principal, provide_settings
from api.documents.controller import InternalFileController, TenantFileController
from api.health import VERSION, health
from api.observability import (
    MetricsController,
    RequestLog,
    answered_errors,
    bind_caller,
    prometheus_config,
    structlog_plugin,
    tracing_plugins,
)
from api.internal_quotes.controller import FastQuoteController
from api.partners.controller import BusinessPartnerController
from api.policies.controller import PolicyController
from api.pricing.controller import PricingRunController
from api.problems import EXCEPTION_HANDLERS
from api.quotes.controller import QuoteController
from api.ratelimit import Limits, PeerLimit, SyncedBuckets
from api.responses import DecimalNumberResponse
from api.temporal import TemporalHolder
from api.settlement.holds import PayoutHoldController
from api.openapi_operations import DecimalSchemaPlugin, document
from api.schema_viewer import assets_router, viewer
from api.settlement.controller import (
    InternalEventController,
    ObservationController,
    SettlementController,
    TenantEventController,
)
from api.settlement.quality import ObservationQualityController
from api.settlement.revisions import ObservationRevisionController
from api.travel.controller import TravelEventController
from api.webhooks.controller import WebhookEndpointController
from models.db.core import close_pool, open_pool
from models.db.sealing import require_key
from models.db.sealing_keys import check_sealing_key
from models.observability.tracing import configure_tracing, instrument_database
from models.settings import Settings, load_settings

ROUTES = [
    TokenController,
    jwks,
    health,
    MetricsController,
    IndexDefinitionController,
    PincodeMappingController,
    BusinessPartnerController,
    FastQuoteController,
    TravelEventController,
    ObservationController,
    ObservationQualityController,
    ObservationRevisionController,
    SettlementController,
    InternalEventController,
    TenantEventController,
    WebhookEndpointController,
    PayoutHoldController,
    CapacityLimitController,
    BordereauxController,
    PortfolioController,
    CoverageController,
    PricingRunController,
    QuoteController,
    PolicyController,
    InternalFileController,
    TenantFileController,
]

DESCRIPTION = """
Parametric weather-index insurance: covers that pay automatically when a measured index
(rainfall, wind, temperature) at a monitoring target passes its trigger.

Authenticate with the OAuth 2.0 client-credentials grant at
`POST /auth/{tenant_id}/oauth2/v2.0/token` and send `Authorization: Bearer <token>` and
`x-tenant-id` on every call. Errors are `application/problem+json` (RFC 9457).
"""


def create_app(settings: Settings | None = None, temporal_client: Client | None = None) -> Litestar:
    settings = settings or load_settings()
    require_key(settings)  # SECRETS_KEY with PostgreSQL: refused before serving anything

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        await open_pool()
        try:
            await check_sealing_key()  # another host's SECRETS_KEY: refuse to start
            async with app.state.limits.syncing():  # the rate-limit buckets the processes share
                yield
        finally:
            await close_pool()

    openapi = OpenAPIConfig(
        title="Parametric Insurance Service",
        version=VERSION,
        description=DESCRIPTION,
        path="/schema",
        render_plugins=[viewer()],  # served whole, works offline (api/schema_viewer.py)
        security=[{"BearerToken": []}],
        components=Components(
            security_schemes={
                "BearerToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    bearer_format="JWT",
                    description="Access token from the token endpoint (tenant and internal surfaces); "
                    "the API key on the travel surface.",
                )
            }
        ),
    )
    app = Litestar(
        route_handlers=[*ROUTES, assets_router()],
        guards=[authorize],
        lifespan=[lifespan],
        state=State(
            {
                "settings": settings,
                "tokens": TokenService(settings),
                "temporal": TemporalHolder(settings, temporal_client),
                "nonviable": NonViableSlots(),
                "limits": Limits(settings, SyncedBuckets(settings.rate_limit_scope)),
                "admission": PricingAdmission(settings, SharedAdmissions(settings.rate_limit_scope)),
            }
        ),
        dependencies={"principal": Provide(provide_principal), "settings": Provide(provide_settings)},
        # Every answer is counted (api/observability.py), the refusals of the middleware after
        # it too: they are made answers before they reach it (answered_errors).
        middleware=[
            prometheus_config().middleware,
            answered_errors,
            PeerLimit(),
            RequireJSON(),
            DefineMiddleware(AuthMiddleware, exclude=PUBLIC_PATHS),
        ],
        plugins=[structlog_plugin(settings), *tracing_plugins(), DecimalSchemaPlugin()],
        before_request=bind_caller,
        before_send=[response_headers],
        exception_handlers=EXCEPTION_HANDLERS,
        response_class=DecimalNumberResponse,
        openapi_config=openapi,
        request_max_body_size=settings.max_body_bytes,
        logging_config=None,
        debug=False,
    )
    document(app)  # 415/429/500, Idempotency-Key, the token form, examples (api/openapi_operations.py)
    app.asgi_handler = RequestLog(app.asgi_handler)  # outermost: every request is logged, unknown paths too
    if tracing_plugins():  # traced: each SQL statement is a span of its request (off by default)
        instrument_database(engine_finder())
    missing = undeclared(h for route in app.routes for h in getattr(route, "route_handlers", ()))
    if missing:  # every route says who may call it (api/auth/roles.py); refuse to start otherwise
        raise RuntimeError(f"routes that declare no callers: {missing}")
    return app


def app_factory() -> Litestar:
    """Entry point for `uvicorn --factory api.app:app_factory`: JSON logs (the structlog
    plugin), traces exported when OTEL_EXPORTER_OTLP_ENDPOINT is set."""
    configure_tracing("api")
    return create_app()
