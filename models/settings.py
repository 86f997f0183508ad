"""Runtime configuration, read once from the environment.

Every knob has the default a new user gets from `make dev`; production overrides them by
environment variables (see README "Configuration").
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = Path(__file__).resolve().parent / "data"


def _env(name: str, default: str) -> str:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _file_id_key() -> str | None:
    """FILE_ID_KEY checked when read (base64 of 32 bytes): a process with a bad key refuses to
    start instead of failing every document it renders."""
    import base64
    import binascii

    text = os.environ.get("FILE_ID_KEY", "").strip()
    if not text:
        return None
    try:
        key = base64.b64decode(text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("FILE_ID_KEY must be base64 of 32 bytes (e.g. `openssl rand -base64 32`)") from None
    if len(key) != 32:
        raise ValueError(f"FILE_ID_KEY must be base64 of 32 bytes, not {len(key)}")
    return text


def _path_or_none(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


@dataclass(frozen=True, slots=True)
class Settings:
    var_dir: Path
    database_url: str
    api_host: str
    api_port: int
    public_base_url: str
    temporal_address: str
    temporal_namespace: str
    task_queue: str
    server_app_id: str
    token_ttl_seconds: int
    signing_key_path: Path
    # External identity provider (Entra-ID style). When jwks_url is set, tokens are validated
    # against it instead of the service's own keys.
    external_jwks_url: str | None
    external_issuer: str | None  # may contain "{tenant_id}"
    tenant_claim: str
    internal_role: str
    max_page_size: int
    max_body_bytes: int
    rate_limit_per_second: float  # per API client; 0 turns the limit off
    rate_limit_burst: int
    token_rate_per_second: float  # token endpoint, per client address
    risk_carrier: str = "Parametric Re Ltd"
    catalogue_currency: str = "INR"
    catalogue_unit_limit: Decimal = Decimal("100000")  # the limit of one unit of cover
    # Shown as the coverage's expectedLossRatio only for runs an actuary priced with an explicit
    # expectedLossRatio override; every other run is priced with the risk load below.
    expected_loss_ratio: Decimal = Decimal("0.65")
    # The risk load (activities/pricing/loading.py; docs/pricing-model.md): fractions.
    pricing_expense_ratio: Decimal = Decimal("0.20")
    pricing_uncertainty_multiplier: Decimal = Decimal("0.67")
    pricing_capital_cost_rate: Decimal = Decimal("0.06")
    pricing_capital_quantile: Decimal = Decimal("0.99")
    pricing_min_rate_on_line: Decimal = Decimal("0.01")
    # A quote's capital from the book is at least this share of its own (docs/portfolio.md,
    # "In the price of a quote"): the model has no dependence between targets, the record
    # does (one monsoon at every target: the as-if years), so a quote away from the book's
    # concentration is never priced as if it needed no capital. The actuary's judgement.
    pricing_book_capital_floor: Decimal = Decimal("0.25")
    # A travel stay's policy costs at least this (INR), whatever its cover (docs/travel.md):
    # issuing, monitoring and settling one stay is a fixed cost the expense ratio does not
    # recover on a cover of a few rupees.
    travel_min_premium: Decimal = Decimal("25")
    catalogue_created_by: str = "catalogue@parametric.example"
    # Monte Carlo paths of a catalogue pricing run (the engine's DEFAULT_N; a test checks).
    simulations: int = 131072
    catalogue_months: int = 12
    # Processes of the pricing worker's pool; 0: one per spare core (at least one).
    pricing_processes: int = 0
    # How long an HTTP call waits on a workflow before answering 503 (models.domain.lifecycle).
    request_deadline_seconds: float = 20.0
    demo_tenant_name: str = "demo"
    # Data providers the daily observations Schedule runs (comma-separated: imd-grid,
    # open-meteo, nasa-power, simulated); none by default. `make dev` runs `simulated`.
    observation_providers: tuple[str, ...] = ()
    imd_grid_dir: Path | None = None  # where ops drop IMD's .grd files (imd-grid provider)
    # With an external issuer: the tenant id whose tokens may carry staff roles (unset: none).
    external_platform_tenant: str | None = None
    # Limits (docs/api-decisions.md, "Limits"). Proxies whose X-Forwarded-For / Forwarded the
    # API believes (addresses or CIDRs); from any other peer those headers are ignored.
    trusted_proxies: tuple[str, ...] = ()
    # The one forwarding header those proxies write: x-forwarded-for (default) or forwarded.
    trusted_proxy_header: str = "x-forwarded-for"
    # How long the API keeps an idle HTTP/1.1 connection open for the client's next request
    # (seconds; uvicorn's default is 5). Longer than the idle timeout of whatever pools
    # connections to it (a load balancer: 60 s on AWS ALB; a client library's pool), so they,
    # never the API, close an idle connection: closed by the API, it races the client's next
    # request (docs/deployment.md, "Keep-alive").
    api_keep_alive_seconds: int = 75
    peer_rate_per_second: float = 400.0  # every request, per peer address; 0 turns it off
    peer_rate_burst: int = 800
    # Failed authentications (bad client secret, bad or expired token, unknown API key), per
    # peer address and per claimed client: a burst, then this many a minute; 0 turns it off.
    auth_failures_per_minute: float = 10.0
    auth_failure_burst: int = 20
    # API processes with the same scope share their rate-limit budgets through the database
    # (api/ratelimit.py); by default every process on the database does.
    rate_limit_scope: str = ""
    # Requests that start pricing (a cold target-month, a new travel stay), per tenant.
    pricing_in_flight_per_tenant: int = 10  # at once; 0 turns the quota off
    pricing_starts_per_minute: int = 60  # in any 60 s; 0 turns it off
    # The sellable window: whole calendar months from the first of next month (catalogue
    # `from`/`to`, quote periods).
    sellable_months: int = 24
    # Webhooks (docs/webhooks.md): loopback receivers only for a developer's machine and the
    # tests (never private or link-local ones); the key sealing secrets at rest, webhook
    # secrets and token signing keys (SECRETS_KEY, first named WEBHOOK_SECRETS_KEY; unset:
    # one kept in var/keys/webhook-secrets.key); the Web UI port webhooks never reach.
    webhook_allow_loopback: bool = False
    webhook_secrets_key: str | None = None
    # The key of documents' ids (FILE_ID_KEY, base64 of 32 bytes; unset: derived from the
    # secrets key's first key): an id is an HMAC of what the document is, so a retried render
    # stores once, and nobody without the key computes another's (models/db/files.py).
    file_id_key: str | None = None
    temporal_ui_port: int = 8233
    # Seconds a stopping worker (SIGTERM) gives the activities in flight to finish.
    worker_shutdown_seconds: float = 30.0
    # Operating it (README, "Logs, metrics and traces"): LOG_FORMAT json | console | auto
    # (console on a terminal), LOG_LEVEL; the Prometheus port of a worker process's Temporal
    # runtime and domain counters (0: none; each worker process on a host its own) and the
    # address it binds. Traces: the OTEL_* variables (models/observability/tracing.py).
    log_format: str = "auto"
    log_level: str = "INFO"
    worker_metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    # A hosted Temporal (docs/deployment.md): TLS (on by itself with a client certificate or
    # an API key), mutual TLS's client certificate and key, the CA of a private server, the
    # server name to verify; an API key (Temporal Cloud) sent as a bearer token.
    temporal_tls: bool = False
    temporal_tls_cert: Path | None = None
    temporal_tls_key: Path | None = None
    temporal_tls_ca: Path | None = None
    temporal_tls_server_name: str | None = None
    temporal_api_key: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def audience(self) -> str:
        return f"api://{self.server_app_id}"

    @property
    def scope(self) -> str:
        return f"api://{self.server_app_id}/.default"

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgres://", "postgresql://"))

    @property
    def sqlite_path(self) -> Path:
        return Path(self.database_url.removeprefix("sqlite:///"))

    def issuer_for(self, tenant_id: str) -> str:
        return f"{self.public_base_url}/auth/{tenant_id}/v2.0"


def load_settings() -> Settings:
    var_dir = Path(_env("PARAMETRIC_VAR_DIR", str(REPO_ROOT / "var"))).resolve()
    host = _env("API_HOST", "127.0.0.1")
    port = int(_env("API_PORT", "8000"))
    return Settings(
        var_dir=var_dir,
        database_url=_env("DATABASE_URL", f"sqlite:///{var_dir / 'parametric.sqlite'}"),
        api_host=host,
        api_port=port,
        public_base_url=_env("PUBLIC_BASE_URL", f"http://{host}:{port}").rstrip("/"),
        temporal_address=_env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
        temporal_namespace=_env("TEMPORAL_NAMESPACE", "default"),
        task_queue=_env("TEMPORAL_TASK_QUEUE", "parametric"),
        server_app_id=_env("SERVER_APP_ID", "parametric-insurance"),
        token_ttl_seconds=int(_env("TOKEN_TTL_SECONDS", "3600")),
        signing_key_path=Path(_env("SIGNING_KEY_PATH", str(var_dir / "keys" / "signing-key.pem"))),
        external_jwks_url=os.environ.get("AUTH_JWKS_URL") or None,
        external_issuer=os.environ.get("AUTH_ISSUER") or None,
        tenant_claim=_env("AUTH_TENANT_CLAIM", "tid"),
        internal_role=_env("AUTH_INTERNAL_ROLE", "internal"),
        max_page_size=int(_env("MAX_PAGE_SIZE", "100")),
        max_body_bytes=int(_env("MAX_BODY_BYTES", str(1024 * 1024))),
        rate_limit_per_second=float(_env("RATE_LIMIT_PER_SECOND", "100")),
        rate_limit_burst=int(_env("RATE_LIMIT_BURST", "200")),
        token_rate_per_second=float(_env("TOKEN_RATE_PER_SECOND", "10")),
        risk_carrier=_env("RISK_CARRIER", "Parametric Re Ltd"),
        demo_tenant_name=_env("DEMO_TENANT_NAME", "demo"),  # make dev's demo tenant (tests name their own)
        catalogue_currency=_env("CATALOGUE_CURRENCY", "INR"),
        catalogue_unit_limit=Decimal(_env("CATALOGUE_UNIT_LIMIT", "100000")),
        expected_loss_ratio=Decimal(_env("EXPECTED_LOSS_RATIO", "0.65")),
        pricing_expense_ratio=Decimal(_env("PRICING_EXPENSE_RATIO", "0.20")),
        pricing_uncertainty_multiplier=Decimal(_env("PRICING_UNCERTAINTY_MULTIPLIER", "0.67")),
        pricing_capital_cost_rate=Decimal(_env("PRICING_CAPITAL_COST_RATE", "0.06")),
        pricing_capital_quantile=Decimal(_env("PRICING_CAPITAL_QUANTILE", "0.99")),
        pricing_min_rate_on_line=Decimal(_env("PRICING_MIN_RATE_ON_LINE", "0.01")),
        pricing_book_capital_floor=Decimal(_env("PRICING_BOOK_CAPITAL_FLOOR", "0.25")),
        travel_min_premium=Decimal(_env("TRAVEL_MIN_PREMIUM", "25")),
        simulations=int(_env("PRICING_SIMULATIONS", "131072")),
        pricing_processes=int(_env("PRICING_PROCESSES", "0")),
        request_deadline_seconds=float(_env("REQUEST_DEADLINE_SECONDS", "20")),
        observation_providers=tuple(p.strip() for p in _env("OBSERVATION_PROVIDERS", "").split(",") if p.strip()),
        imd_grid_dir=Path(_env("IMD_GRID_DIR", str(var_dir / "imd-grid"))),
        external_platform_tenant=os.environ.get("AUTH_PLATFORM_TENANT") or None,
        webhook_allow_loopback=_env("WEBHOOK_ALLOW_LOOPBACK", "0").lower() in ("1", "true", "yes"),
        webhook_secrets_key=os.environ.get("SECRETS_KEY") or os.environ.get("WEBHOOK_SECRETS_KEY") or None,
        file_id_key=_file_id_key(),
        temporal_ui_port=int(_env("TEMPORAL_UI_PORT", "8233")),
        trusted_proxies=tuple(p.strip() for p in _env("TRUSTED_PROXIES", "").split(",") if p.strip()),
        trusted_proxy_header=_env("TRUSTED_PROXY_HEADER", "x-forwarded-for").strip().lower(),
        api_keep_alive_seconds=int(_env("API_KEEP_ALIVE_SECONDS", "75")),
        # One peer address may be many clients (a NAT): by default four clients' worth.
        peer_rate_per_second=float(_env("PEER_RATE_PER_SECOND", str(4 * float(_env("RATE_LIMIT_PER_SECOND", "100"))))),
        peer_rate_burst=int(_env("PEER_RATE_BURST", str(4 * int(_env("RATE_LIMIT_BURST", "200"))))),
        auth_failures_per_minute=float(_env("AUTH_FAILURES_PER_MINUTE", "10")),
        auth_failure_burst=int(_env("AUTH_FAILURE_BURST", "20")),
        rate_limit_scope=_env("RATE_LIMIT_SCOPE", ""),
        pricing_in_flight_per_tenant=int(_env("PRICING_IN_FLIGHT_PER_TENANT", "10")),
        pricing_starts_per_minute=int(_env("PRICING_STARTS_PER_MINUTE", "60")),
        sellable_months=int(_env("SELLABLE_MONTHS", "24")),
        worker_shutdown_seconds=float(_env("WORKER_SHUTDOWN_SECONDS", "30")),
        log_format=_env("LOG_FORMAT", "auto"),
        log_level=_env("LOG_LEVEL", "INFO"),
        worker_metrics_port=int(_env("WORKER_METRICS_PORT", "0")),
        metrics_host=_env("METRICS_HOST", "127.0.0.1"),
        temporal_tls=_env("TEMPORAL_TLS", "0").lower() in ("1", "true", "yes"),
        temporal_tls_cert=_path_or_none("TEMPORAL_TLS_CERT"),
        temporal_tls_key=_path_or_none("TEMPORAL_TLS_KEY"),
        temporal_tls_ca=_path_or_none("TEMPORAL_TLS_CA"),
        temporal_tls_server_name=os.environ.get("TEMPORAL_TLS_SERVER_NAME") or None,
        temporal_api_key=os.environ.get("TEMPORAL_API_KEY") or None,
    )
