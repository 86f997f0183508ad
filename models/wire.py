"""Wire types (msgspec Structs) shared by the API, workflows and activities.

Field names follow the spec to the letter: camelCase on the tenant and internal surfaces
(`rename="camel"`), snake_case on the travel surface. Money amounts are Decimal, written to
JSON as numbers (see api.responses) and validated on the way in (finite, non-negative,
bounded, no more decimals than the currency has).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec

from models.money import MoneyError, check_amount, minor_units

T = TypeVar("T")

CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{2,63}$")

ShortText = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
OptionalText = Annotated[str, msgspec.Meta(max_length=200)]


class CamelStruct(msgspec.Struct, rename="camel", forbid_unknown_fields=False, omit_defaults=False):
    """Base of tenant/internal surface types."""


class Money(CamelStruct, frozen=True):
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not CURRENCY_RE.match(self.currency):
            raise ValueError("currency must be a three-letter ISO 4217 code")
        try:
            minor_units(self.currency)
            check_amount(self.amount, self.currency)
        except MoneyError as exc:
            raise ValueError(str(exc)) from None


class Problem(msgspec.Struct, omit_defaults=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[FieldError] | None = None


class FieldError(msgspec.Struct):
    field: str
    message: str


class Page(CamelStruct, Generic[T]):
    """Tenant-surface page envelope."""

    content: list[T]
    total_elements: int
    total_pages: int
    size: int
    number: int


class ContentEnvelope(CamelStruct, Generic[T]):
    content: list[T]


# --- auth -------------------------------------------------------------------------------


class TokenResponse(msgspec.Struct):
    access_token: str
    token_type: str
    expires_in: int
    scope: str


class OAuthError(msgspec.Struct, omit_defaults=True):
    """RFC 6749 section 5.2 error body (the token endpoint's own format)."""

    error: str
    error_description: str | None = None


# --- catalogue ----------------------------------------------------------------------------


class IndexDefinitionOut(CamelStruct):
    id: str
    name: str
    description: str
    unit: str
    type: str


class Point(CamelStruct):
    type: Literal["Point"]
    coordinates: tuple[float, float]  # longitude, latitude


class MonitoringTargetOut(CamelStruct):
    id: str
    name: str
    geometry: Point


# --- business partners ---------------------------------------------------------------------


class NewAddress(CamelStruct, tag_field="@type", tag="NewAddress"):
    country_code: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{2}$")]
    house_number: OptionalText = ""
    street: OptionalText = ""
    country: OptionalText = ""
    county: OptionalText = ""
    postcode: OptionalText = ""
    state: OptionalText = ""
    district: OptionalText = ""
    city: OptionalText = ""
    state_code: OptionalText = ""


PartnerRole = Literal["INTERMEDIARY", "POLICY_HOLDER", "RISK_CARRIER"]
# The spec does not list tax statuses; these are the ones Indian GST registration knows.
TaxStatus = Literal["REGISTERED", "UNREGISTERED", "COMPOSITION", "EXEMPT", "SEZ", "NON_RESIDENT"]


class NewBusinessPartner(CamelStruct, tag_field="@type", tag="NewBusinessPartner"):
    name: ShortText
    role: PartnerRole
    contact_name: ShortText
    contact_email_address: Annotated[str, msgspec.Meta(max_length=254)]
    contact_phone_number: Annotated[str, msgspec.Meta(pattern=r"^\+?[0-9 ()\-]{6,20}$")]
    address: NewAddress
    tax_status: TaxStatus

    def __post_init__(self) -> None:
        if not EMAIL_RE.match(self.contact_email_address):
            raise ValueError("contactEmailAddress is not an e-mail address")


class Address(CamelStruct, tag_field="@type", tag="Address"):
    country_code: str
    house_number: str
    street: str
    country: str
    county: str
    postcode: str
    state: str
    district: str
    city: str
    state_code: str


class BusinessPartner(CamelStruct, tag_field="@type", tag="BusinessPartner"):
    id: uuid.UUID
    name: str
    role: str
    contact_name: str
    contact_email_address: str
    contact_phone_number: str
    address: Address
    tax_status: str
    created_at: dt.datetime


# --- health --------------------------------------------------------------------------------


class ComponentHealth(msgspec.Struct):
    status: Literal["ok", "down"]
    detail: str | None = None


class Health(msgspec.Struct):
    status: Literal["ok", "degraded"]
    database: ComponentHealth
    temporal: ComponentHealth
    version: str


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)


# --- travel surface (snake_case as the spec gives it) -----------------------------------------


class ValidatedEvent(msgspec.Struct):
    policy_id: str
    event_type: str
    validated_day: dt.date
    validated_amount: Decimal


class ValidatedEvents(msgspec.Struct):
    validated_events: list[ValidatedEvent]
