"""Wire types shared by the surfaces: the camelCase base, problem details, pages, money-free
common shapes, health. Field names follow the spec to the letter (camelCase on the tenant and
internal surfaces via `rename="camel"`)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Generic, Literal, TypeVar

import msgspec

from models.domain.money import CURRENCY_RE, Money  # noqa: F401 - Money is on the wire as is

T = TypeVar("T")

# No control characters (NUL breaks PostgreSQL), no bidi overrides or zero-width characters
# (they disguise names), and - for required text - not blank.
_CLEAN = r"[^\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
ShortText = Annotated[
    str, msgspec.Meta(min_length=1, max_length=200, pattern=rf"^(?=.*\S){_CLEAN}*\Z",
                      description="1 to 200 characters of text, not blank, without control or invisible characters")
]
OptionalText = Annotated[str, msgspec.Meta(
    max_length=200, pattern=rf"^{_CLEAN}*\Z", description="text without control or invisible characters"
)]


class CamelStruct(msgspec.Struct, rename="camel", forbid_unknown_fields=False, omit_defaults=False):
    """Base of tenant/internal surface types."""


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


class Point(CamelStruct):
    type: Literal["Point"]
    coordinates: tuple[float, float]  # longitude, latitude


class MonitoringTargetOut(CamelStruct):
    id: str
    name: str
    geometry: Point


# --- health --------------------------------------------------------------------------------


class ComponentHealth(msgspec.Struct):
    status: Literal["ok", "down"]
    detail: str | None = None


class Health(msgspec.Struct):
    status: Literal["ok", "degraded"]
    database: ComponentHealth
    temporal: ComponentHealth
    version: str


def iso_millis(value: dt.datetime) -> str:
    """`YYYY-MM-DDThh:mm:ss.SSS+00:00` in UTC (the internal surface's date-time form)."""
    value = value.astimezone(dt.timezone.utc) if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+00:00"
