"""Unit tests of the pure pieces: money, wire validation, converter, reference data, dev config."""

from __future__ import annotations

import datetime as dt
import types
import uuid
from decimal import Decimal

import msgspec
import pytest

from models.domain.money import MoneyError, from_minor, to_minor
from models.wire.common import Money
from models.wire.internal import NewBusinessPartner


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [("0", "INR", 0), ("1.5", "INR", 150), ("1234567.89", "INR", 123456789), ("7", "JPY", 7), ("1.234", "KWD", 1234)],
)
def test_money_round_trips_through_minor_units(amount, currency, minor):
    assert to_minor(Decimal(amount), currency) == minor
    assert from_minor(minor, currency) == Decimal(amount)


@pytest.mark.parametrize("amount", ["NaN", "sNaN", "Infinity", "-Infinity", "-1", "1.001", "1e13"])
def test_money_refuses_non_finite_negative_absurd_and_over_precise(amount):
    with pytest.raises(MoneyError):
        to_minor(Decimal(amount), "INR")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"amount": "NaN", "currency": "INR"}',
        b'{"amount": "Infinity", "currency": "INR"}',
        b'{"amount": -5, "currency": "INR"}',
        b'{"amount": 1e300, "currency": "INR"}',
        b'{"amount": 10.005, "currency": "INR"}',
        b'{"amount": 10, "currency": "inr"}',
        b'{"amount": 10, "currency": "XXX"}',
        b'{"amount": true, "currency": "INR"}',
        b'{"currency": "INR"}',
    ],
)
def test_money_wire_type_rejects_bad_amounts(raw):
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=Money)


def test_money_wire_type_keeps_exact_decimals():
    money = msgspec.json.decode(b'{"amount": 100000.10, "currency": "INR"}', type=Money)
    assert money.amount == Decimal("100000.10")


async def test_converter_round_trips_structs_decimal_uuid_and_dates():
    from models.temporal.converter import data_converter

    values = [Money(amount=Decimal("12.30"), currency="INR"), uuid.uuid4(), dt.date(2026, 1, 31)]
    payloads = await data_converter.encode(values)
    assert payloads[0].metadata["encoding"] == b"json/plain"
    assert await data_converter.decode(payloads, [Money, uuid.UUID, dt.date]) == values


def test_new_business_partner_requires_an_email():
    raw = b"""{"name":"a","role":"INTERMEDIARY","contactName":"b","contactEmailAddress":"nope",
    "contactPhoneNumber":"+91 1234567","address":{"countryCode":"IN"},"taxStatus":"EXEMPT"}"""
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=NewBusinessPartner)


def test_every_pin_code_with_coordinates_maps_to_a_target_containing_it():
    from models.db.reference_data import CELL_DEGREES, build_targets, read_pin_codes

    pin_codes = read_pin_codes()
    targets = build_targets(pin_codes)
    by_pin = {pc: t for t in targets for pc in t.pin_codes}
    assert len(by_pin) == len(pin_codes)
    for pc in pin_codes:
        t = by_pin[pc.pin_code]
        assert abs(pc.latitude - t.latitude) <= CELL_DEGREES / 2
        assert abs(pc.longitude - t.longitude) <= CELL_DEGREES / 2
    assert len({t.id for t in targets}) == len(targets)


def test_cell_centre_and_readable_target_ids():
    from models.db.reference_data import cell_centre, target_id

    assert cell_centre(12.97, 77.59) == (12.875, 77.625)
    assert cell_centre(13.0, 77.5) == (13.125, 77.625)
    assert target_id(12.875, 77.625) == "IN-12.875N-077.625E"


def test_dev_server_command_follows_temporal_dev_yml():
    from api.dev import dev_server_config, temporal_command
    from models.settings import load_settings
    from models.temporal.search_attributes import SEARCH_ATTRIBUTES

    cfg = dev_server_config()
    cmd = temporal_command(cfg, load_settings(), "temporal")
    assert cmd[:3] == ["temporal", "server", "start-dev"]
    assert cmd[cmd.index("--ui-port") + 1] == "8233"
    assert cmd[cmd.index("--db-filename") + 1].endswith("var/temporal/temporal.db")
    registered = {cmd[i + 1] for i, part in enumerate(cmd) if part == "--search-attribute"}
    assert registered == {f"{k}={v}" for k, v in SEARCH_ATTRIBUTES.items()}
    pragmas = {cmd[i + 1] for i, part in enumerate(cmd) if part == "--sqlite-pragma"}
    assert pragmas == {"journal_mode=wal", "synchronous=normal"}
    dynamic = {cmd[i + 1] for i, part in enumerate(cmd) if part == "--dynamic-config-value"}
    assert dynamic == {"matching.numTaskqueueReadPartitions=1", "matching.numTaskqueueWritePartitions=1",
                       "matching.enableFairness=true"}  # per-tenant fairness keys (docs/api-decisions.md)


def test_the_temporal_binary_accepts_the_dev_tuning(tmp_path, monkeypatch):
    """The exact command `make dev` runs (tuning flags included) starts the shipped binary."""
    import subprocess
    import sys
    from dataclasses import replace
    from pathlib import Path

    from api.dev import _port_open, _wait, dev_server_config, temporal_command
    from models.settings import load_settings
    from tests.conftest import free_port

    port = free_port()
    monkeypatch.setenv("TEMPORAL_UI_PORT", str(free_port()))
    cfg = {**dev_server_config(), "db_filename": str(tmp_path / "t.db")}
    settings = replace(load_settings(), temporal_address=f"127.0.0.1:{port}")
    binary = str(Path(sys.executable).parent / "temporal")
    server = subprocess.Popen(temporal_command(cfg, settings, binary), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait(lambda: server.poll() is not None or _port_open(settings.temporal_address), 60, "Temporal dev server")
        assert server.poll() is None, server.stdout.read().decode(errors="replace")[-2000:]
        assert (tmp_path / "t.db-wal").exists(), "the server's SQLite file is not in WAL mode"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# --- verified-token cache ------------------------------------------------------------------


async def test_a_verified_token_is_remembered_until_it_expires(settings, database, monkeypatch):
    from api.auth import tokens as token_module
    from api.auth.tokens import TokenError, TokenService

    service = TokenService(settings)
    token, ttl = await service.issue(str(uuid.uuid4()), "client-1", internal=False)
    first = await service.verify(token)
    assert service.cached_principal(token) == first
    # A second call is answered from the cache: even a broken key lookup is not reached.
    monkeypatch.setattr(service, "_key_for", lambda _: (_ for _ in ()).throw(AssertionError("re-verified")))
    assert await service.verify(token) == first
    # Past exp plus the leeway the cache forgets it (the full check then decides again).
    monkeypatch.undo()
    later = token_module.time.time() + ttl + token_module.LEEWAY + 1
    monkeypatch.setattr(token_module, "time", types.SimpleNamespace(time=lambda: later))
    assert service.cached_principal(token) is None
    assert token not in service._verified
    with pytest.raises(TokenError, match="malformed"):
        await service.verify(token.replace(".", "", 1))  # and bad tokens are never cached


async def test_the_verified_token_cache_is_bounded(settings, database, monkeypatch):
    from api.auth import tokens as token_module
    from api.auth.tokens import TokenService

    monkeypatch.setattr(token_module, "VERIFIED_CACHE_SIZE", 3)
    service = TokenService(settings)
    issued = [(await service.issue(str(uuid.uuid4()), f"c{i}", internal=False))[0] for i in range(5)]
    for token in issued:
        await service.verify(token)
    assert [service.cached_principal(t) is not None for t in issued] == [False, False, True, True, True]


def test_a_request_write_gives_up_before_the_request_does():
    """Every attempt of a write an HTTP call waits on, retries included, ends within the write
    budget, which ends before the call's deadline: a failed write is answered (503), never
    left to land after the client gave up."""
    from models.domain.lifecycle import REQUEST_DEADLINE, REQUEST_WRITE_BUDGET
    from workflows.lifecycle import request_write_worst_case

    assert request_write_worst_case() <= REQUEST_WRITE_BUDGET < REQUEST_DEADLINE
