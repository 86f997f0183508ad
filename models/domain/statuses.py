"""The states of quotes, policies, coverages and pricing runs: one vocabulary for the workflows
that decide them, the stores that record them and the wire types that show them.

They are `StrEnum`s: each member *is* its string ("CREATED" == QuoteStatus.CREATED), so rows,
search attributes and recorded workflow histories hold the same values as before the enums.
The transitions are in docs/quotes-and-policies.md.
"""

from __future__ import annotations

from enum import StrEnum


class QuoteStatus(StrEnum):
    """A tenant quote's `status` column (the wire's `state` is the lower-case view of it)."""

    CREATED = "CREATED"  # open: can be converted or rejected until its deadline
    ACCEPTED = "ACCEPTED"  # converted to a policy draft
    REJECTED = "REJECTED"
    EXPIRED = "EXPIRED"  # its deadline passed while CREATED
    NOT_CREATED = "NOT_CREATED"  # workflow outcome only: the quote's row was never written
    # A fast quote's job (internal surface) before it is CREATED, i.e. completed:
    PENDING = "PENDING"  # written, its job not yet scheduled (state `created`)
    QUEUED = "QUEUED"  # its pricing job is scheduled (state `queued`)
    RUNNING = "RUNNING"  # its pricing activity has started (state `running`)
    ERROR = "ERROR"  # its job failed for good (state `error`, with the reason)


# The internal surface's `state` of each quote status (docs/internal-quotes.md).
INTERNAL_QUOTE_STATE = {
    QuoteStatus.PENDING: "created",
    QuoteStatus.QUEUED: "queued",
    QuoteStatus.RUNNING: "running",
    QuoteStatus.CREATED: "completed",
    QuoteStatus.ERROR: "error",
    QuoteStatus.ACCEPTED: "accepted",
    QuoteStatus.REJECTED: "rejected",
    QuoteStatus.EXPIRED: "expired",
}


class PolicyStatus(StrEnum):
    """A policy's `status` column."""

    CREATED = "CREATED"  # draft: can be activated until it lapses
    ACCEPTED = "ACCEPTED"  # activated; monitoring starts at the first risk-period start
    ACTIVE = "ACTIVE"  # in a risk period
    CANCELED = "CANCELED"  # its covers no longer trigger
    EXPIRED = "EXPIRED"  # its last risk period is over
    LAPSED = "LAPSED"  # a draft not activated by its deadline
    NOT_CREATED = "NOT_CREATED"  # workflow outcome only: the conversion never wrote the policy


# What GET /policies can filter on (every status a policy row can hold).
STORED_POLICY_STATUSES = tuple(s for s in PolicyStatus if s is not PolicyStatus.NOT_CREATED)


class CoverageStatus(StrEnum):
    PRICING = "PRICING"  # created with model-set terms; no premium until its first run completes
    ACTIVE = "ACTIVE"  # priced: quotes may use it
    # Its catalogue pricing is held for an actuary (a burn view above the band, pricing-2026.4):
    # not offered, no price, until an actuary publishes the held run (docs/catalogue.md).
    REVIEW = "REVIEW"


class PricingRunStatus(StrEnum):
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    # An actuary's rerun, simulated and stored, waiting for a second actuary to publish it
    # (docs/catalogue.md, four eyes); quotes do not use it.
    CANDIDATE = "CANDIDATE"
    COMPLETED = "COMPLETED"  # published: the coverage's price while it is the newest published run
    FAILED = "FAILED"
    LAPSED = "LAPSED"  # a candidate nobody published within its lifetime
    # The catalogue's own pricing, held for an actuary (the burn check's views lie above the
    # band, the pricing run's `holdReason`); one actuary publishes it (docs/catalogue.md).
    HELD = "HELD"
