"""Workflow and activity inputs of quotes (their payloads are in recorded histories: fields
are only ever added, with defaults; docs/workflow-versioning.md)."""

from __future__ import annotations

import uuid

import msgspec

# The quote as built is a domain record (models/domain/quotes.py); it travels in workflow inputs.
from models.domain.quotes import CoverSnapshot as CoverSnapshot  # noqa: F401 - re-exported
from models.domain.quotes import LineItemDraft as LineItemDraft  # noqa: F401
from models.domain.quotes import QuoteDraft
from models.domain.packages import PackagePrice as PackagePrice  # noqa: F401 - re-exported
# The lifecycle writes' commands: the stores take them too, so they are defined in the domain.
from models.domain.writes import ConvertQuoteInput as ConvertQuoteInput  # noqa: F401 - re-exported
from models.domain.writes import FastQuoteCompletion as FastQuoteCompletion  # noqa: F401
from models.domain.writes import FastQuoteStatusInput as FastQuoteStatusInput  # noqa: F401
from models.domain.writes import QuoteWriteInput as QuoteWriteInput  # noqa: F401

# The quote workflow's contract: what the API starts and calls, by name (the API never imports
# workflow code; tests/test_temporal_contract.py checks the names against the definitions).
QUOTE_WORKFLOW = "QuoteWorkflow"
CREATED_UPDATE = "created"  # update-with-start of POST /quotes: answers once the quote is written
REJECT_UPDATE = "reject"
CONVERT_UPDATE_V0 = "convert"  # lifecycle 1 only
CONVERTED_SIGNAL = "converted"  # ops bring a converted quote's state up to date with it
STATUS_QUERY = "status"


class QuoteTransitionInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    to_status: str
    from_statuses: list[str]


class QuoteWorkflowInput(msgspec.Struct, frozen=True):
    draft: QuoteDraft
    # The lifecycle the run follows: 1 for runs started before the outcome-checked lifecycle
    # (their input has no such field), 2 for every run started since (workflows/quotes.py).
    lifecycle: int = 1
    # A fast quote's job: paths and seed of its joint pricing (0: not a fast quote); a tenant
    # quote started with `price_package`: the same for its package's pricing
    simulations: int = 0
    seed: int = 0
    # True (tenant quotes started since issue 26): the quote's package is priced jointly, with
    # its line items' caps, before the quote is written (from the package-price cache, else by
    # `price_package` on the pricing queue), and each cover carries its part of the package's
    # premium. False (runs started before): the catalogue's stand-alone prices as built.
    price_package: bool = False


# --- fast quotes (internal surface): the job of a QuoteWorkflow whose draft is kind FAST ------


class FastQuoteJob(msgspec.Struct, frozen=True):
    """The pricing job of a fast quote: its covers (frozen at quote time), priced jointly."""

    tenant_id: str
    quote_id: uuid.UUID
    monitoring_target_id: str
    quantity: str  # units of each cover (sum insured / unit limit), an exact decimal string
    simulations: int
    seed: int


class FastQuotePricing(msgspec.Struct, frozen=True):
    """What the pricing activity found (money in minor units; `report` as documented in
    docs/internal-quotes.md)."""

    gross_premium_minor: int
    risk_premium_minor: int
    report: dict


class FastQuoteDocumentInput(msgspec.Struct, frozen=True):
    tenant_id: str
    quote_id: uuid.UUID
    pricing: FastQuotePricing


# --- packages: the price of a quote's covers as one (models/domain/packages.py) ---------------


class BookPricingInput(msgspec.Struct, frozen=True):
    """A priced package (per unit of S) and the quote's line items, for its capital from the
    book (activities/book_capital.py)."""

    monitoring_target_id: str
    line_items: list[LineItemDraft]
    price: PackagePrice


class PackagePricingInput(msgspec.Struct, frozen=True):
    """A package to price: a quote's line items (covers frozen at quote time, one sum insured),
    on the target's model, with `simulations` paths and `seed`."""

    monitoring_target_id: str
    line_items: list[LineItemDraft]
    simulations: int
    seed: int


class QuoteWorkflowStatus(msgspec.Struct, frozen=True, rename="camel"):
    """The quote workflow's `status` query (JSON as before: camelCase keys, ids and times as
    text): {"quoteId", "status", "policyId" (null until converted), "deadline" (ISO datetime),
    "detail"}. Decode it with `handle.query(STATUS_QUERY, result_type=QuoteWorkflowStatus)`."""

    quote_id: str
    status: str  # a QuoteStatus, or the workflow's transient REJECTING / EXPIRING
    policy_id: str | None
    deadline: str
    detail: str = ""
