"""Temporal data converter on msgspec: workflows and activities pass the wire types as-is.

Structs, Decimal (as exact strings), UUID, dates and enums round-trip; the payloads stay
`json/plain`, so the Temporal Web UI shows them readably.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec
import temporalio.api.common.v1
from temporalio.converter import (
    BinaryNullPayloadConverter,
    BinaryPlainPayloadConverter,
    BinaryProtoPayloadConverter,
    CompositePayloadConverter,
    DataConverter,
    EncodingPayloadConverter,
    JSONProtoPayloadConverter,
)

_encoder = msgspec.json.Encoder()


class MsgspecJSONPayloadConverter(EncodingPayloadConverter):
    @property
    def encoding(self) -> str:
        return "json/plain"

    def to_payload(self, value: Any) -> temporalio.api.common.v1.Payload | None:
        return temporalio.api.common.v1.Payload(
            metadata={"encoding": b"json/plain"},
            data=_encoder.encode(value),
        )

    def from_payload(self, payload: temporalio.api.common.v1.Payload, type_hint: type | None = None) -> Any:
        if type_hint is None or type_hint is Any:
            return msgspec.json.decode(payload.data)
        return msgspec.json.decode(payload.data, type=type_hint)


class MsgspecPayloadConverter(CompositePayloadConverter):
    def __init__(self) -> None:
        super().__init__(
            BinaryNullPayloadConverter(),
            BinaryPlainPayloadConverter(),
            JSONProtoPayloadConverter(),
            BinaryProtoPayloadConverter(),
            MsgspecJSONPayloadConverter(),
        )


data_converter = dataclasses.replace(DataConverter.default, payload_converter_class=MsgspecPayloadConverter)
