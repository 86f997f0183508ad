"""A Response class that writes Decimal as a JSON number (the spec's `amount: number`).

Litestar's default encoder writes Decimal as a string; msgspec can write the exact decimal
digits as a number, which keeps money exact on the wire as well as inside.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response
from litestar.serialization import default_serializer
from litestar.serialization.msgspec_hooks import encode_msgpack
from litestar.utils.helpers import get_enum_string_value

_encoders: dict[int, msgspec.json.Encoder] = {}


def _encoder(enc_hook) -> msgspec.json.Encoder:
    key = id(enc_hook)
    encoder = _encoders.get(key)
    if encoder is None:
        encoder = _encoders[key] = msgspec.json.Encoder(enc_hook=enc_hook, decimal_format="number")
    return encoder


class DecimalNumberResponse(Response):
    def render(self, content: Any, media_type: str, enc_hook=default_serializer) -> bytes:
        media = get_enum_string_value(media_type)
        if isinstance(content, (bytes, str)) or "json" not in media:
            if media == "application/x-msgpack":
                return encode_msgpack(content, enc_hook)
            return super().render(content, media_type, enc_hook)
        return _encoder(enc_hook).encode(content)


def encode_json(value: Any) -> bytes:
    """The bytes a handler would send for `value` (used to store idempotent replays)."""
    return _encoder(default_serializer).encode(value)
