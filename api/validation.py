"""Every bad field of a JSON body, in words (issue 29).

msgspec stops at the first error and says it in its own terms ("Expected `str` matching regex
'^[^@\\s]{1,64}@…'"). A client should learn at once every field it must fix, in words it can
show a person. So when a body is refused, it is walked again field by field against its
Struct type: a missing required field, a value of the wrong type, a constraint broken — each is
named (`sumInsuredForLineItem.currency`) with a sentence. A pattern's sentence comes from the
type's own `msgspec.Meta(description=...)`, so the rule is written once, beside the pattern.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import re
import types
import typing
import uuid
from typing import Any, Literal

import msgspec

from models.wire.common import FieldError

_NAMES = {
    str: "text",
    int: "a whole number",
    float: "a number",
    decimal.Decimal: "a number",
    bool: "true or false",
    dt.date: "a date (YYYY-MM-DD)",
    dt.datetime: "a date-time (ISO 8601 with a time zone)",
    uuid.UUID: "a UUID",
    list: "a list",
    dict: "an object",
}
_JSON_KINDS = {"str": "text", "int": "a whole number", "float": "a number", "bool": "true or false",
               "array": "a list", "object": "an object", "null": "null"}


def _unwrap(tp: Any) -> tuple[Any, list[msgspec.Meta], bool]:
    """(the bare type, its Meta constraints, whether null is allowed)."""
    metas: list[msgspec.Meta] = []
    nullable = False
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp, *extra = typing.get_args(tp)
            metas += [m for m in extra if isinstance(m, msgspec.Meta)]
            continue
        if origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            nullable = nullable or len(args) < len(typing.get_args(tp))
            if len(args) == 1:
                tp = args[0]
                continue
        return tp, metas, nullable


def struct_of(tp: Any) -> type[msgspec.Struct] | None:
    """The Struct a (possibly Annotated or optional) type names, or None."""
    return _struct(tp)


def _struct(tp: Any) -> type[msgspec.Struct] | None:
    bare, _, _ = _unwrap(tp)
    return bare if isinstance(bare, type) and issubclass(bare, msgspec.Struct) else None


def _expected(tp: Any) -> str:
    bare, _, _ = _unwrap(tp)
    if typing.get_origin(bare) is Literal:
        return "one of " + ", ".join(str(v) for v in typing.get_args(bare))
    if isinstance(bare, type) and issubclass(bare, enum.Enum):
        return "one of " + ", ".join(str(m.value) for m in bare)
    origin = typing.get_origin(bare) or bare
    return _NAMES.get(origin, "a value of the documented form")


def in_words(message: str, tp: Any) -> str:
    """msgspec's message about a value of type `tp`, as a sentence a person reads."""
    bare, metas, _ = _unwrap(tp)
    described = next((m.description for m in metas if m.description), None)
    if "matching regex" in message:
        return f"must be {described}" if described else "is not in the form this field takes"
    if m := re.match(r"Expected `\w+` of length >= (\d+)", message):
        return "must not be empty" if m.group(1) == "1" else f"must have at least {m.group(1)} characters"
    if m := re.match(r"Expected `\w+` of length <= (\d+)", message):
        return f"must have at most {m.group(1)} characters"
    if m := re.match(r"Expected `array` of length (>=|<=) (\d+)", message):
        return f"must list {'at least' if m.group(1) == '>=' else 'at most'} {m.group(2)} item(s)"
    if m := re.match(r"Expected `\w+` (>=|>|<=|<) (\S+)", message):
        words = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}[m.group(1)]
        return f"must be {words} {m.group(2)}"
    if message.startswith("Invalid enum value"):
        return f"must be {_expected(tp)}"
    if m := re.match(r"Expected `(\w+)`, got `(\w+)`", message):
        got = _JSON_KINDS.get(m.group(2), m.group(2))
        return f"must be {_expected(tp)}, not {got}"
    if message.startswith("Invalid") or message.startswith("Expected"):
        return f"must be {_expected(tp)}"
    return message  # a sentence of our own (a __post_init__ check): already in words


def _at(message: str) -> tuple[str, str]:
    """Split msgspec's "... - at `$.x[0].y`" into ("x.0.y", "...")."""
    m = re.search(r"\s*-\s*at `\$(?P<path>[^`]*)`\s*$", message)
    if not m:
        return "", message
    # "$[0].day" (an item of a list field) is "0.day": index first, then the leading dot.
    return re.sub(r"\[(\d+)\]", r".\1", m.group("path")).lstrip("."), message[: m.start()]


def _check(tp: Any, value: Any, path: str) -> list[FieldError]:
    """Errors of one value against its type (a nested Struct field by field, then whole)."""
    inner = _struct(tp)
    if inner is not None and isinstance(value, dict):
        errors = body_errors(inner, value, path)
        if errors:
            return errors
    try:
        msgspec.json.decode(msgspec.json.encode(value), type=tp)
    except msgspec.ValidationError as exc:
        where, message = _at(str(exc))
        missing = re.match(r"Object missing required field `([^`]+)`", message)
        if missing:
            return [FieldError(".".join(p for p in (path, where, missing.group(1)) if p), "is required")]
        if inner is not None and not where:  # the nested Struct's own check names its field first
            where = _leading_field(inner, message) or ""
        return [FieldError(".".join(p for p in (path, where) if p) or "body", in_words(message, tp if not where else Any))]
    except (msgspec.EncodeError, TypeError, ValueError):
        return []
    return []


def _leading_field(struct_type: type[msgspec.Struct], message: str) -> str | None:
    """The wire name of the field a Struct's own check begins its sentence with, if any."""
    return next((f.encode_name for f in msgspec.structs.fields(struct_type)
                 if re.match(rf"{re.escape(f.encode_name)}\b", message)), None)


def own_check_errors(struct_type: type[msgspec.Struct], data: Any) -> list[FieldError]:
    """The Struct's own cross-field check (a `__post_init__` sentence such as "riskPeriodTo
    is before riskPeriodFrom"), named by the field its sentence begins with; empty when the
    data decodes or the sentence names no field."""
    try:
        msgspec.json.decode(msgspec.json.encode(data), type=struct_type)
    except msgspec.ValidationError as exc:
        where, message = _at(str(exc))
        named = None if where else _leading_field(struct_type, message)
        return [FieldError(named, message.strip())] if named else []
    except (msgspec.EncodeError, TypeError, ValueError):
        return []
    return []


def body_errors(struct_type: type[msgspec.Struct], data: Any, prefix: str = "") -> list[FieldError]:
    """Every bad field of `data` (decoded JSON) against `struct_type`, named by the wire names
    ("a.b.0.c"); empty when each field alone is fine (the Struct's own cross-field checks
    then speak for themselves)."""
    if not isinstance(data, dict):
        return [FieldError(prefix or "body", "must be a JSON object")]
    errors: list[FieldError] = []
    for field in msgspec.structs.fields(struct_type):
        path = f"{prefix}.{field.encode_name}" if prefix else field.encode_name
        if field.encode_name not in data:
            if field.required:
                errors.append(FieldError(path, "is required"))
            continue
        errors += _check(field.type, data[field.encode_name], path)
    return errors
