"""Piccolo tables: the read model the API lists from and the activities write to.

Conventions:
- Money is integer minor units (`*_minor`, BigInt) next to a `currency` column: exact on
  SQLite and PostgreSQL alike.
- Rates and index values are `Numeric` (Decimal in Python).
- Every tenant-owned row has `tenant_id`; queries go through `models.db.core.scoped_select`
  (and `scoped_objects`, `scoped_count`, `scoped_update`), which always filter by it. Catalogue rows (index definitions, monitoring targets, pin codes,
  coverages) are shared by all tenants.
- Ids are UUIDs, except monitoring targets (readable grid-cell ids) and pin codes.
"""

from __future__ import annotations

from decimal import Decimal

from piccolo.columns import (
    JSON,
    UUID,
    BigInt,
    Boolean,
    Bytea,
    Date,
    Integer,
    Numeric,
    Real,
    Serial,
    Text,
    Timestamptz,
    Varchar,
)
from piccolo.table import Table

RATE = (12, 8)  # digits, decimal places: rates (fractions) and index values
# Units of cover held: a travel line item holds max_payout units (INR a night, up to 1,000,000).
QUANTITY = (20, 8)


class Tenant(Table, tablename="tenant"):
    id = UUID(primary_key=True)
    name = Varchar(length=100, unique=True)
    created_at = Timestamptz()
    # TENANT: an insurer or distributor; PLATFORM: the operator's own, whose clients are
    # staff (at most one; api/auth/tenants.py).
    kind = Varchar(length=20, default="TENANT")


class ApiClient(Table, tablename="api_client"):
    """An OAuth client of a tenant. Secrets are stored as SHA-256 hashes (256-bit random
    secrets need no password hash: api/auth/tenants.py)."""

    id = UUID(primary_key=True)  # the OAuth client_id
    tenant_id = UUID(index=True)
    name = Varchar(length=100)
    secret_hash = Varchar(length=200)
    api_key_sha256 = Varchar(length=64, unique=True)
    internal = Boolean(default=False)
    disabled = Boolean(default=False)
    created_at = Timestamptz()
    # A staff client's roles, comma-separated (data, actuary, operations); "" for a
    # tenant's client. `name` is then the staff member's name, unique among staff.
    roles = Varchar(length=200, default="")
    # A staff member is a person (issue 33): the client's id is their stable staff id (one
    # client per staff member, never reassigned), `email` their person key (required since
    # issue 33; null on staff created before), and the two keys (models/domain/identity.py:
    # case-folded TR#39 skeletons) are unique, so a second name or address that folds or
    # looks like an existing one is refused by the database even under concurrent creations.
    # Null on tenants' clients (both engines allow many nulls under a unique index).
    email = Varchar(length=254, null=True, default=None)
    name_key = Varchar(length=400, null=True, default=None, unique=True)
    email_key = Varchar(length=400, null=True, default=None, unique=True)


class IndexDefinition(Table, tablename="index_definition"):
    id = UUID(primary_key=True)
    code = Varchar(length=50, unique=True)
    name = Varchar(length=100)
    description = Text()
    unit = Varchar(length=20)
    type = Varchar(length=20, default="WEATHER")
    risk_type_id = Varchar(length=20)
    risk_type = Varchar(length=100)
    aggregation = Varchar(length=20)
    direction = Varchar(length=10)
    data_source_id = Varchar(length=50)
    data_source_description = Text()
    data_set_id = Varchar(length=50)
    data_set = Text()
    trigger_label = Varchar(length=100)
    hours_from = Integer(null=True, default=None)
    hours_to = Integer(null=True, default=None)


class MonitoringTarget(Table, tablename="monitoring_target"):
    """A 0.25° grid cell holding the centroids of the pin codes that map to it."""

    id = Varchar(length=40, primary_key=True)
    name = Varchar(length=200)
    longitude = Real()
    latitude = Real()
    district = Varchar(length=100)
    state = Varchar(length=100)
    pin_code_count = Integer()


class PincodeMapping(Table, tablename="pincode_mapping"):
    pin_code = Varchar(length=6, primary_key=True)
    monitoring_target_id = Varchar(length=40, index=True)
    district = Varchar(length=100)
    state = Varchar(length=100)
    latitude = Real()
    longitude = Real()


class Coverage(Table, tablename="coverage"):
    """A priced cover in the catalogue: one target, one index definition, one risk period."""

    id = UUID(primary_key=True)
    monitoring_target_id = Varchar(length=40, index=True)
    index_definition_id = UUID(index=True)
    risk_period_start = Date(index=True)
    risk_period_end = Date()
    label = Varchar(length=200, null=True, default=None)
    risk_carrier = Varchar(length=200)
    currency = Varchar(length=3)
    status = Varchar(length=20, default="ACTIVE")
    ui_state = Varchar(length=20, default="active")
    direction = Varchar(length=10)
    trigger = Numeric(digits=RATE)
    exit = Numeric(digits=RATE, null=True, default=None)
    limit_minor = BigInt()
    min_payout_minor = BigInt()
    payout_per_unit_minor = BigInt()
    risk_premium_minor = BigInt(default=0)
    risk_premium_pct = Numeric(digits=RATE, default=Decimal(0))
    gross_premium_indication_pct = Numeric(digits=RATE, default=Decimal(0))
    expected_loss_ratio = Numeric(digits=RATE)
    simulations = Integer(default=0)
    pricing_version = Integer(default=0)
    fact_sheet_file_id = UUID(null=True, default=None)
    technical_report_file_id = UUID(null=True, default=None)
    created_by = Varchar(length=200)
    created_at = Timestamptz()
    updated_at = Timestamptz()
    # The data set the cover settles on, fixed when the coverage is created (a term of the
    # cover, copied into every quote and policy sold on it); null: created before
    # pricing-2026.4.0, the index's data set of then (models/domain/observations.py, settles_on).
    data_set = Varchar(length=40, null=True, default=None)
    # The settlement basis frozen at creation (issue 34; models/domain/settlement_basis.py,
    # `SettlementBasis` as JSON): the source ladder, calculation deadline, true-up window. Null:
    # created before the ladder: settles on final values only (docs/settlement.md).
    settlement_basis = JSON(null=True, default=None)


class Quote(Table, tablename="quote"):
    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    kind = Varchar(length=10)  # TENANT | FAST | TRAVEL
    name = Varchar(length=200)
    status = Varchar(length=20)  # tenant surface status
    state = Varchar(length=20)  # internal surface state
    external_ref = Varchar(length=200, null=True, default=None, index=True)
    monitoring_target_id = Varchar(length=40, null=True, default=None)
    customer_id = UUID(null=True, default=None)
    risk_period_from = Date(null=True, default=None)
    risk_period_to = Date(null=True, default=None)
    currency = Varchar(length=3)
    sum_insured_minor = BigInt(default=0)
    total_sum_insured_minor = BigInt(default=0)
    gross_premium_minor = BigInt(default=0)
    risk_premium_minor = BigInt(default=0)
    valid_until = Date(null=True, default=None)
    document_file_id = UUID(null=True, default=None)
    error = Text(null=True, default=None)
    created_at = Timestamptz()
    updated_at = Timestamptz()
    pricing_report = JSON(null=True, default=None)  # a fast quote's aggregated pricing
    # a tenant quote's months without a line item and why ([{start, end, reason, detail}];
    # null: every month has one), models.domain.quotes.UncoveredMonth
    uncovered_months = JSON(null=True, default=None)


class LineItem(Table, tablename="line_item"):
    """One month of a quote or policy; `covers` snapshots the coverage terms sold."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    quote_id = UUID(null=True, default=None, index=True)
    policy_id = UUID(null=True, default=None, index=True)
    position = Integer()
    name = Varchar(length=40)
    period_start = Date()
    period_end = Date()
    currency = Varchar(length=3)
    quantity = Numeric(digits=QUANTITY)
    sum_insured_minor = BigInt()
    total_sum_insured_minor = BigInt()
    min_payout_minor = BigInt()
    payout_per_unit_minor = BigInt()
    premium_minor = BigInt()
    covers = JSON()


class Policy(Table, tablename="policy"):
    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    quote_id = UUID(unique=True)  # one policy per quote, enforced by the database
    kind = Varchar(length=10)
    name = Varchar(length=200)
    status = Varchar(length=20, index=True)
    external_ref = Varchar(length=200, null=True, default=None)
    issuer = Varchar(length=200, default="")
    customer = Varchar(length=200, default="")
    inception_date = Date(index=True)
    expiry_date = Date()
    currency = Varchar(length=3)
    total_sum_insured_minor = BigInt()
    gross_premium_minor = BigInt()
    risk_premium_minor = BigInt(default=0)
    activated_at = Timestamptz(null=True, default=None)
    canceled_at = Timestamptz(null=True, default=None)
    signature_confirmed = Boolean(default=False)
    schedule_file_id = UUID(null=True, default=None)
    created_at = Timestamptz()
    updated_at = Timestamptz()


class PolicyCount(Table, tablename="policy_count"):
    """How many policies a tenant has in each status, kept by database triggers on `policy`
    (migration "policy counts"): GET /policies answers totalElements without counting rows."""

    tenant_id = UUID(index=True)
    status = Varchar(length=20)
    n = BigInt(default=0)


class PolicyItem(Table, tablename="policy_item"):
    """One cover of a policy in the internal form (a coverage with its sums)."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    policy_id = UUID(index=True)
    coverage_id = UUID()
    name = Varchar(length=200, null=True, default=None)
    description = Text(null=True, default=None)
    quantity = Numeric(digits=QUANTITY)
    currency = Varchar(length=3)
    sum_insured_minor = BigInt()
    total_sum_insured_minor = BigInt()
    total_min_payout_minor = BigInt()


class BusinessPartner(Table, tablename="business_partner"):
    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    name = Varchar(length=200)
    role = Varchar(length=20)
    contact_name = Varchar(length=200)
    contact_email = Varchar(length=254)
    contact_phone = Varchar(length=40)
    address = JSON()
    tax_status = Varchar(length=30)
    created_at = Timestamptz()


class Observation(Table, tablename="observation"):
    """A measured value at a target for a day (hour null) or an hour, one row per revision:
    a later value for the same key is a new row with the next revision, nothing is edited
    (docs/settlement.md). `obs_key` is target|data set|variable|day|hour."""

    id = Serial(primary_key=True)
    monitoring_target_id = Varchar(length=40, index=True)
    variable = Varchar(length=30)  # rainfall_mm | wind_kmh | temperature_c
    observed_on = Date(index=True)
    hour = Integer(null=True, default=None)
    value = Numeric(digits=RATE)
    source = Varchar(length=50)
    provisional = Boolean(default=False)
    received_at = Timestamptz()
    data_set = Varchar(length=40, default="")
    quality = Varchar(length=20, default="OK")
    revision = Integer(default=1)
    obs_key = Varchar(length=160, default="")  # looked up by the unique (obs_key, revision) index
    simulated = Boolean(default=False)
    # Provenance (docs/observations.md): who or which provider submitted the value
    # ("staff:<name>", "provider:<name>", "cli:<os user>") and why; a held revision also
    # names the data staff member who approved it (four eyes).
    submitted_by = Varchar(length=200, default="unknown (before provenance)")
    reason = Text(default="")
    approved_by = Varchar(length=200, default="")
    # The quality check a SUSPECT value failed (models/domain/quality_checks.py), e.g. "spike";
    # "" when none failed. A value a data staff member accepted says "accepted:<check>".
    quality_check = Varchar(length=200, default="")


class ObservationRevision(Table, tablename="observation_revision"):
    """Revisions of observations held for a second data principal's approval, because they
    would change an amount already settled (docs/observations.md, "Four eyes"). The rows are
    stored only when approved; `settlements` says which settled covers change and how."""

    id = UUID(primary_key=True)
    state = Varchar(length=20, index=True)  # HELD | APPROVED | REFUSED
    submitted_by = Varchar(length=200)
    reason = Text()
    rows = JSON()  # the held rows, each with the revision it revises and that value
    row_count = Integer()
    settlements = JSON()  # [{coverageId, periodStart, periodEnd, settledIndex, revisedIndex, change, ...}]
    fingerprint = Varchar(length=64, index=True)  # the same held rows submitted again find this one
    created_at = Timestamptz()
    decided_by = Varchar(length=200, default="")
    decided_at = Timestamptz(null=True, default=None)
    decision_reason = Text(default="")


class SettlementNotice(Table, tablename="settlement_notice"):
    """Observations stored over a target's days, written in their transaction: the
    settlements over those days are told (docs/observations.md, "Settlements are told").
    The immediate signal after the commit may be lost with its process; the
    `settlement-notices` sweep finds every notice not yet `notified_at` and tells them."""

    id = UUID(primary_key=True)
    monitoring_target_id = Varchar(length=40)
    days = JSON()  # ["YYYY-MM-DD", ...]: the days of the stored rows
    created_at = Timestamptz()
    notified_at = Timestamptz(null=True, default=None, index=True)  # None: not told yet
    settlements = Integer(default=0)  # settlements told (begun ones over the days)


class ParametricEvent(Table, tablename="parametric_event"):
    """The settlement of one cover of one policy at one revision of the data: a validated
    parametric event (payout_minor > 0), a settlement with no payout (0), or an adjustment
    (the difference a later revision makes). Unique per settlement key (policy, coverage,
    revision); never edited."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    policy_id = UUID(index=True)
    coverage_id = UUID()
    settlement_key = Varchar(length=200, unique=True)  # idempotency of payouts
    event_type = Varchar(length=50)
    validated_day = Date(index=True)
    index_value = Numeric(digits=RATE)
    currency = Varchar(length=3)
    payout_minor = BigInt()
    created_at = Timestamptz()
    kind = Varchar(length=20, default="SETTLEMENT")  # SETTLEMENT | ADJUSTMENT
    line_item_id = UUID(null=True, default=None)
    data_set = Varchar(length=40, default="")
    revision = Integer(default=1)
    simulated = Boolean(default=False)
    explanation = JSON(default="{}")
    # INITIAL: paid on provisional or fallback values (reduced by their error); FINAL: on final
    # values (a final-only cover's settlement, the true-up of an INITIAL one, later revisions).
    stage = Varchar(length=10, default="FINAL")


class Payout(Table, tablename="payout"):
    """Money owed to a policy holder by a settlement (positive) or an adjustment (either
    sign); unique per settlement key, written in the event's transaction."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    policy_id = UUID(index=True)
    coverage_id = UUID()
    event_id = UUID()
    settlement_key = Varchar(length=200, unique=True)
    currency = Varchar(length=3)
    amount_minor = BigInt()
    created_at = Timestamptz()


class Settlement(Table, tablename="settlement"):
    """The settlement state of one catalogue coverage (all policies holding it): what ops and
    the internal API see. One row per coverage, updated as it moves."""

    coverage_id = UUID(primary_key=True)
    monitoring_target_id = Varchar(length=40, index=True)
    period_start = Date()
    period_end = Date()
    state = Varchar(length=20, index=True)  # WAITING | INITIAL | SETTLED | FLAGGED | DISPUTED
    revision = Integer(default=0)
    index_value = Numeric(digits=RATE, null=True, default=None)
    detail = Text(default="")
    policies = Integer(default=0)
    paid_minor = BigInt(default=0)
    updated_at = Timestamptz()
    # When the revision window of the coverage's settlement (its target and period) closes:
    # set once every coverage of the period is SETTLED (the settle run's time + 90 days).
    # A revision stored after it never re-settles (docs/settlement.md, "Revisions"); null:
    # not settled yet.
    revisions_until = Timestamptz(null=True, default=None)
    # "" none paid yet; INITIAL: paid on provisional/fallback values, awaiting the final true-up;
    # FINAL: paid on final values (or the calculation agent's final determination).
    stage = Varchar(length=10, default="")


class SettlementSnapshot(Table, tablename="settlement_snapshot"):
    """Exactly the values a coverage's settlement used (their rungs, calibration and terms),
    as canonical JSON bytes and their SHA-256 (models/domain/ladder.py `canonical_bytes`).
    One row per (coverage, snapshot revision N, from 1): a new set of values makes a new
    snapshot, the old ones stay readable. Never edited."""

    id = Varchar(length=80, primary_key=True)  # <coverage id>:s<revision>
    coverage_id = UUID(index=True)
    revision = Integer()
    stage = Varchar(length=10)  # INITIAL | FINAL
    sha256 = Varchar(length=64)
    body = Text()  # the canonical bytes, UTF-8
    index_value = Numeric(digits=RATE, null=True, default=None)
    created_at = Timestamptz()


class SettlementDispute(Table, tablename="settlement_dispute"):
    """A coverage whose sources disagree (the primary and the fallback, or two rungs, put
    its index on different sides of the trigger beyond the ladder's tolerance): nothing is
    paid on it until two data staff members decide which source settles it (four eyes)."""

    id = UUID(primary_key=True)
    coverage_id = UUID(index=True)
    monitoring_target_id = Varchar(length=40)
    period_start = Date()
    period_end = Date()
    state = Varchar(length=20, index=True)  # OPEN | PROPOSED | DECIDED | CLOSED (the data settled it)
    # The two readings: the primary's index (its highest rungs) and the other source's.
    primary_index = Numeric(digits=RATE, null=True, default=None)
    other_index = Numeric(digits=RATE, null=True, default=None)
    other_source = Varchar(length=40, default="")  # FALLBACK | FINAL | PROVISIONAL
    detail = Text(default="")
    proposed_by = Varchar(length=200, default="")
    proposal = Varchar(length=20, default="")  # the source the proposer chose
    proposal_reason = Text(default="")
    proposed_by_id = Varchar(length=64, default="")  # the proposer's stable staff id
    decided_by = Varchar(length=200, default="")
    decision = Varchar(length=20, default="")
    decision_reason = Text(default="")  # the confirmer's reason
    decided_at = Timestamptz(null=True, default=None)
    created_at = Timestamptz()


class SettlementIndex(Table, tablename="settlement_index"):
    """A coverage's index as computed at one revision of the data: the value and the daily
    path that claim explanations show. Unique per (coverage, revision); never edited."""

    id = Varchar(length=80, primary_key=True)  # <coverage id>:r<revision>
    coverage_id = UUID(index=True)
    revision = Integer()
    index_code = Varchar(length=40)
    data_set = Varchar(length=40)
    index_value = Numeric(digits=RATE)
    path = JSON()
    simulated = Boolean(default=False)
    computed_at = Timestamptz()


class StoredFile(Table, tablename="stored_file"):
    """A rendered document and who may read it (models/domain/file_access.py): `audience`
    OWNER (`tenant_id`'s clients, and staff of `staff_roles`), STAFF (staff of `staff_roles`)
    or CATALOGUE (everyone). The default reads as nobody's (OWNER of no tenant)."""

    id = UUID(primary_key=True)
    tenant_id = UUID(null=True, default=None, index=True)
    audience = Varchar(length=20, default="OWNER")
    staff_roles = Varchar(length=100, default="")  # comma-separated staff roles
    kind = Varchar(length=40)
    filename = Varchar(length=200)
    media_type = Varchar(length=100)
    size_bytes = BigInt()
    sha256 = Varchar(length=64)
    content = Bytea()
    created_at = Timestamptz()


class PricingRun(Table, tablename="pricing_run"):
    """Every pricing of a coverage, kept for audit: inputs, model, data hash and results."""

    id = UUID(primary_key=True)
    coverage_id = UUID(index=True)
    version = Integer()
    status = Varchar(length=20)  # QUEUED | RUNNING | CANDIDATE | COMPLETED (published) | FAILED | LAPSED
    workflow_id = Varchar(length=200)
    simulations = Integer()
    seed = BigInt()
    expected_loss_ratio = Numeric(digits=RATE)
    model_version = Varchar(length=40, null=True, default=None)
    data_hash = Varchar(length=80, null=True, default=None)
    currency = Varchar(length=3)
    risk_premium_minor = BigInt(null=True, default=None)
    risk_premium_pct = Numeric(digits=RATE, null=True, default=None)
    gross_premium_minor = BigInt(null=True, default=None)
    gross_premium_indication_pct = Numeric(digits=RATE, null=True, default=None)
    metrics = JSON(null=True, default=None)  # risk metrics, money as strings
    burn = JSON(null=True, default=None)  # burn analysis per year
    report = JSON(null=True, default=None)  # loss distribution, convergence, model fit (for the PDF)
    fact_sheet_file_id = UUID(null=True, default=None)
    technical_report_file_id = UUID(null=True, default=None)
    requested_by = Varchar(length=200)  # Principal.actor ("staff:arun"), or the catalogue's creator
    error = Text(null=True, default=None)
    created_at = Timestamptz()
    completed_at = Timestamptz(null=True, default=None)
    # Who made it the price, and when (a rerun: a second actuary; the catalogue's own runs:
    # their requester at completion). Null on runs completed before four eyes: they were
    # published at completion by their requester.
    published_by = Varchar(length=200, null=True, default=None)
    published_at = Timestamptz(null=True, default=None)
    # An actuary's rerun: its CoveragePricingWorkflow's input (PriceCoverageInput as JSON),
    # written with the QUEUED row, so that the start sweep starts it if its writer died
    # before it did (models/temporal/sweeps.py). Null: the catalogue's runs, and reruns
    # written before it was kept.
    workflow_input = JSON(null=True, default=None)


class IdempotencyRecord(Table, tablename="idempotency_record"):
    """An Idempotency-Key of a tenant: the first request's body hash and its response."""

    id = Serial(primary_key=True)
    tenant_id = UUID(index=True)
    key = Varchar(length=200)
    request_sha256 = Varchar(length=64)
    status = Varchar(length=20)  # IN_FLIGHT | DONE
    # Transitions (PATCH/DELETE): how many of this key's updates failed for good (a write that
    # gave up); the next retry uses a new update id (api/idempotency.py).
    generation = Integer(default=0)
    response_status = Integer(null=True, default=None)
    response_body = Text(null=True, default=None)
    created_at = Timestamptz()
    # IN_FLIGHT: the claim holds until then; a request with the key after it (the first
    # request's API process died) takes the claim over. Null on rows from before leases.
    lease_until = Timestamptz(null=True, default=None)


class WebhookEndpoint(Table, tablename="webhook_endpoint"):
    """A tenant's receiver of signed webhooks (Standard Webhooks). The secret signs every
    message (HMAC-SHA256) and is shown once, at registration or rotation; after a rotation
    the previous one signs too until `previous_secret_expires_at`. Secrets are sealed at rest
    (models/db/webhook_secrets.py). A deleted endpoint keeps its row (status DELETED, secrets
    erased) for the deliveries that name it."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    url = Varchar(length=2000)
    description = Varchar(length=200, default="")
    event_types = JSON()  # list of event types, or ["*"]
    secret = Varchar(length=100)  # enc1:<sealed>; whsec_<base64> in rows of before sealing
    status = Varchar(length=20, default="ENABLED")  # ENABLED | DISABLED | DELETED
    disabled_reason = Text(default="")
    failed_deliveries = Integer(default=0)  # in a row; reset by a delivered message
    created_at = Timestamptz()
    updated_at = Timestamptz()
    previous_secret = Varchar(length=100, default="")  # sealed like `secret`; "" when none
    previous_secret_expires_at = Timestamptz(null=True, default=None)  # it signs until then
    secret_rotated_at = Timestamptz(null=True, default=None)


class WebhookMessage(Table, tablename="webhook_message"):
    """The outbox: a message written in the same transaction as what it reports, dispatched
    to the tenant's endpoints afterwards (at least once; receivers dedupe on `webhook-id`)."""

    id = Varchar(length=60, primary_key=True)  # msg_<uuid>: the webhook-id header
    tenant_id = UUID(index=True)
    event_type = Varchar(length=60)
    payload = JSON()
    created_at = Timestamptz()
    dispatched_at = Timestamptz(null=True, default=None, index=True)
    # The policy a payout or adjustment message pays (null for other messages, and for
    # messages written before payout holds): a held policy's are not dispatched.
    policy_id = UUID(null=True, default=None, index=True)


class PayoutHold(Table, tablename="payout_hold"):
    """Operations staff hold a policy's payouts (e.g. a sanctions check or a disputed
    claim): while HELD its `payout.recorded` and `adjustment.recorded` messages, the
    instruction to pay, are not sent; settlement still computes and records every event.
    Released, they go out. At most one HELD hold per policy (docs/roles.md, "Payout holds"):
    a partial unique index, `payout_hold_one_held_per_policy` (migration 2026-11-26T06:30)."""

    id = UUID(primary_key=True)
    tenant_id = UUID(index=True)
    policy_id = UUID(index=True)
    state = Varchar(length=20, index=True)  # HELD | RELEASED
    reason = Text()
    held_by = Varchar(length=200)  # Principal.actor of the operations staff member
    held_at = Timestamptz()
    released_by = Varchar(length=200, default="")
    released_at = Timestamptz(null=True, default=None)
    release_reason = Text(default="")


class WebhookDelivery(Table, tablename="webhook_delivery"):
    """One message to one endpoint: its attempts and outcome."""

    id = Varchar(length=120, primary_key=True)  # <message id>:<endpoint id>
    tenant_id = UUID(index=True)
    message_id = Varchar(length=60, index=True)
    endpoint_id = UUID(index=True)
    status = Varchar(length=20, default="PENDING")  # PENDING | DELIVERED | FAILED
    attempts = Integer(default=0)
    last_status_code = Integer(null=True, default=None)
    last_error = Text(default="")
    created_at = Timestamptz()
    updated_at = Timestamptz()
    # When its workflow was started (None: not yet, e.g. its dispatcher died after the
    # commit): every dispatch pass starts the PENDING deliveries not started (found through
    # the partial index `webhook_delivery_pending`, migration 2026-11-26T04:10).
    started_at = Timestamptz(null=True, default=None)
    # How many times a payout hold stopped it on its way (a payout message of a policy held
    # after it was dispatched): each time it is put back PENDING and not started, and after
    # the release a new run, `webhook:<id>:after-hold-<n>`, sends it (models/db/webhooks.py).
    held_times = Integer(default=0)


class TravelCoverage(Table, tablename="travel_coverage"):
    """A hotel-rain coverage of the travel surface: the `coverage` row of one stay and
    trigger at a target, with the simulation's distribution of nights paid that prices any
    max_payout and qty exactly (docs/travel.md)."""

    coverage_id = UUID(primary_key=True)
    monitoring_target_id = Varchar(length=40)
    first_night = Date()
    last_night = Date()
    trigger = Numeric(digits=RATE)
    night_counts = JSON()  # [paths with 0 nights at or above the trigger, with 1, ...]
    # the parameter band: night_counts of each bootstrap replicate of the target's model
    # ([[...], ...]); null for stays priced before pricing-2026.4.0
    replicate_counts = JSON(null=True, default=None)
    simulations = Integer()
    seed = BigInt()
    model_version = Varchar(length=80)
    data_hash = Varchar(length=80)
    workflow_id = Varchar(length=200)
    created_at = Timestamptz()


class SigningKey(Table, tablename="signing_key"):
    """A token signing key (ES256) every API process shares (api/auth/keys.py): the current
    one (highest `generation`) signs; a retired one verifies the tokens it signed for a
    token lifetime after `retired_at`. The private half is sealed at rest
    (models/db/sealing.py) and erased once retired; keys imported public-only (a key file's
    `.previous.pub.pem`, another host's key file) have none and no generation."""

    kid = Varchar(length=64, primary_key=True)  # RFC 7638 thumbprint
    generation = Integer(null=True, default=None, unique=True)  # unique: two first keys cannot both win
    public_jwk = Text()
    private_key = Text(default="")  # enc1:... (sealed PKCS#8 PEM); "" once retired
    created_at = Timestamptz()
    retired_at = Timestamptz(null=True, default=None)
    # Revoked (parametric keys revoke): its tokens are refused at once, it leaves the JWKS
    # and its private half is erased (migration 2026-11-26T07:15).
    revoked_at = Timestamptz(null=True, default=None)


class PackagePriceRow(Table, tablename="package_price"):
    """A package priced per unit of sum insured (models/domain/packages.py), keyed by its
    content hash: the same covers, grouping, model version, paths, seed and loads are the
    same price, so a package asked for again (by any tenant, on either surface, at any sum
    insured) is read, not simulated. Shared by all tenants, like the catalogue it is made of."""

    key = Varchar(length=64, primary_key=True)  # sha256 hex of the package's content
    model_version = Varchar(length=80)
    price = Text()  # the PackagePrice, msgspec JSON
    created_at = Timestamptz()


class SealingKey(Table, tablename="sealing_key"):
    """A secrets key that sealed in this database, by its fingerprint (models/db/sealing.py,
    models/db/sealing_keys.py): a process none of whose keys is here refuses to start. The
    first row (`ordinal` 1, unique: two processes with different keys cannot both be first)
    is the database's first key; a rotation (SECRETS_KEY=new,old) adds the next."""

    fingerprint = Varchar(length=64, primary_key=True)
    ordinal = Integer(unique=True)
    recorded_at = Timestamptz()


class Bordereau(Table, tablename="bordereau"):
    """A month's risk or claims bordereau as produced (models/db/bordereaux.py,
    docs/bordereaux.md): one row per month, kind and tenant that had something in the
    month, and one per month and kind for every tenant together (`tenant_id` NULL, the file
    operations staff download without `?tenantId=`). A re-run replaces the content (the same
    rows give the same bytes) and counts itself in `runs`."""

    id = Varchar(length=80, primary_key=True)  # <YYYY-MM>:<kind>:<tenant id | all>
    month = Varchar(length=7, index=True)  # YYYY-MM (UTC)
    kind = Varchar(length=10)  # risk | claims
    tenant_id = UUID(null=True, default=None)
    content = Text()  # the CSV (UTF-8, CRLF)
    sha256 = Varchar(length=64)
    row_count = Integer()
    totals = Text()  # {"INR": "<minor units>"}: gross premium (risk) or paid (claims), JSON
    produced_at = Timestamptz()
    produced_by = Varchar(length=200)  # the workflow id of the run that wrote it last
    runs = Integer(default=1)


class CapacityLimit(Table, tablename="capacity_limit"):
    """The most the book may pay under one key (docs/capacity.md, models/domain/capacity.py):
    a monitoring target, a risk month ("YYYY-MM") and a tenant, each null for "all". `used_minor`
    is what the policies in force or in draft take of it, kept in the transactions that bind
    (conversion: + its share) and release (cancellation, expiry, lapse: - its share)."""

    id = UUID(primary_key=True)
    key = Varchar(length=120, unique=True)  # LimitKey.text(): one limit per key
    monitoring_target_id = Varchar(length=40, null=True, default=None)
    month = Varchar(length=7, null=True, default=None)
    tenant_id = UUID(null=True, default=None)
    currency = Varchar(length=3)
    limit_minor = BigInt()
    used_minor = BigInt(default=0)
    created_by = Varchar(length=200, default="")
    created_at = Timestamptz()
    updated_at = Timestamptz()


class PortfolioResult(Table, tablename="portfolio_result"):
    """A computed risk of the book (models/db/portfolio.py, docs/portfolio.md): one row per
    run, numbered per scope (`all`, or a tenant's id): GET /internal/portfolio answers the
    latest; `book_hash` says which book (in-force policies and their statuses, as of a day)
    it was computed on."""

    id = Varchar(length=80, primary_key=True)  # <scope>:<version>: two runs never take one number
    scope = Varchar(length=40, index=True)  # "all" | a tenant's id
    version = Integer()  # 1, 2, ... per scope
    book_hash = Varchar(length=64)
    as_of = Date()
    result = Text()  # the PortfolioView's figures, JSON
    workflow_id = Varchar(length=200)
    computed_at = Timestamptz()


class PortfolioPaths(Table, tablename="portfolio_paths"):
    """A whole-book run's loss per path at one monitoring target (docs/portfolio.md, "Capital
    from the book"): a quote's capital is its share of the book's tail on these paths. Kept for
    the latest version of the whole book only, written in the transaction of its result."""

    id = Varchar(length=120, primary_key=True)  # <scope>:<version>:<target>
    scope = Varchar(length=40, index=True)
    version = Integer()
    monitoring_target_id = Varchar(length=40)
    paths = Integer()  # how many: the run's
    losses = Bytea()  # float32 little-endian, one per path (money, major units)
