"""Where a webhook may go (models/domain/webhook_urls.py, models/webhook_resolution.py):
the URL as written, and every address its host resolves to. The rules run with loopback
allowed and not; only loopback ever depends on the setting."""

from __future__ import annotations

import dataclasses
import ipaddress
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.domain.webhook_urls import Refused, UrlPolicy, address_refusal, parse
from models.settings import load_settings
from models.webhook_resolution import Unresolved, policy_of, resolve

STRICT = UrlPolicy()
LOOPBACK_OK = UrlPolicy(allow_loopback=True, service_ports=frozenset({8000, 7233, 8233}))

# Networks no webhook reaches, whatever the setting (RFC 1918, unique local, link-local and
# cloud metadata, CGNAT, multicast, unspecified, reserved and documentation ranges).
NEVER = [
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "224.0.0.0/4",
    "0.0.0.0/8", "240.0.0.0/4", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15",
    "192.0.0.0/24", "192.88.99.0/24", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32", "fec0::/10",
]


def _in(network: str):
    net = ipaddress.ip_network(network)
    return st.integers(0, net.num_addresses - 1).map(lambda i: net.network_address + i)


refused_addresses = st.one_of(*[_in(n) for n in NEVER])


@given(refused_addresses, st.integers(1, 65535), st.booleans())
def test_private_link_local_and_reserved_addresses_are_refused_whatever_the_setting(address, port, allow):
    policy = UrlPolicy(allow_loopback=allow)
    assert address_refusal(address, port, policy)
    if isinstance(address, ipaddress.IPv4Address):  # and their IPv6 forms
        for form in (f"::ffff:{address}", f"64:ff9b::{address}", f"2002:{int(address) >> 16:x}:{int(address) & 0xFFFF:x}::1"):
            assert address_refusal(ipaddress.ip_address(form), port, policy), form


@given(_in("127.0.0.0/8"), st.integers(1, 65535))
def test_loopback_only_when_allowed_and_never_the_services_own_ports(address, port):
    assert "loopback" in address_refusal(address, port, STRICT)
    assert "loopback" in address_refusal(ipaddress.ip_address(f"::ffff:{address}"), port, STRICT)
    allowed = address_refusal(address, port, LOOPBACK_OK)
    assert (allowed is None) == (port not in LOOPBACK_OK.service_ports)
    assert address_refusal(ipaddress.ip_address("::1"), 9000, STRICT)
    assert address_refusal(ipaddress.ip_address("::1"), 9000, LOOPBACK_OK) is None


public_v4 = st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address).filter(
    lambda a: a.is_global and not a.is_multicast and not any(a in ipaddress.ip_network(n) for n in NEVER)
)


@given(public_v4, st.integers(1, 65535))
def test_public_addresses_are_allowed(address, port):
    assert address_refusal(address, port, STRICT) is None
    assert address_refusal(ipaddress.ip_address(f"::ffff:{address}"), port, STRICT) is None
    assert parse(f"https://{address}:{port}/hook").port == port


@given(st.integers().filter(lambda p: not 1 <= p <= 65535))
def test_ports_outside_1_to_65535_are_refused(port):
    with pytest.raises(Refused, match="outside 1-65535|malformed"):
        parse(f"https://93.184.216.34:{port}/hook")


@given(st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=12),
       st.text(st.characters(whitelist_categories=("Ll", "Nd")), max_size=12))
def test_credentials_in_the_url_are_refused(user, password):
    with pytest.raises(Refused):
        parse(f"https://{user}:{password}@93.184.216.34/hook")
    with pytest.raises(Refused):
        parse(f"https://{user}@93.184.216.34/hook")


@pytest.mark.parametrize("url, words", [
    ("ftp://93.184.216.34/x", "http or https"),
    ("file:///etc/passwd", "http or https"),
    ("gopher://93.184.216.34/", "http or https"),
    ("//93.184.216.34/x", "http or https"),
    ("http://user:pw@93.184.216.34/", "credentials"),
    ("http://93.184.216.34:99999/", "outside 1-65535"),
    ("http://93.184.216.34:0/", "outside 1-65535"),
    ("http://93.184.216.34:8o/", "malformed"),
    ("http://93.184.216.34:/", "malformed"),
    ("http:///hook", "no host"),
    ("http://[::1/", "bracket"),
    ("http://::1/", "brackets"),
    ("http://2130706433/", "unusual form"),  # 127.0.0.1 as one number
    ("http://0x7f.1/", "unusual form"),
    ("http://127.1/", "unusual form"),
    ("http://evil.example\\@93.184.216.34/", "RFC 3986"),
    ("http://exa mple.com/", "RFC 3986"),
    ("http://bücher.example/", "RFC 3986"),
    ("http://-bad-.example/", "not a valid host name"),
])
def test_malformed_urls_are_refused_in_words(url, words):
    with pytest.raises(Refused, match=words):
        parse(url)


def test_a_url_is_parsed_as_written():
    t = parse("HTTPS://Receiver.Example.COM/hook?x=1#f")
    assert (t.scheme, t.host, t.port, t.literal) == ("https", "receiver.example.com", 443, None)
    t = parse("http://[2001:4860::8888]:8080/")
    assert (t.host, t.port, str(t.literal)) == ("2001:4860::8888", 8080, "2001:4860::8888")


async def test_resolution_checks_every_address_and_refuses_names_that_do_not_resolve():
    assert [str(a) for a in (await resolve("https://93.184.216.34/hook", STRICT)).addresses] == ["93.184.216.34"]
    with pytest.raises(Refused, match="localhost does not lead to a public internet receiver"):
        await resolve("http://localhost:9000/hook", STRICT)
    resolved = await resolve("http://localhost:9000/hook", LOOPBACK_OK)
    assert all(a.is_loopback for a in resolved.addresses)
    with pytest.raises(Refused, match="localhost does not lead to a public internet receiver"):
        await resolve("http://localhost:7233/", LOOPBACK_OK)  # Temporal, even with loopback allowed
    with pytest.raises(Refused, match="this service's own"):
        await resolve("http://127.0.0.1:7233/", LOOPBACK_OK)
    with pytest.raises(Refused, match="link-local"):
        await resolve("http://169.254.169.254/latest/meta-data/", LOOPBACK_OK)
    with pytest.raises(Unresolved, match="does not resolve"):
        await resolve("https://receiver.example.invalid/hook", STRICT)


async def test_what_a_name_resolves_to_is_not_told(caplog):
    """Review of issues 24/25, finding 4: a name that resolved inside was refused with its
    address and kind ("localhost resolves to 127.0.0.1 is a loopback address"), a name that
    did not resolve with "does not resolve": a tenant could map the service's internal DNS
    through webhook URLs (at registration and in deliveries' lastError). Now one sentence
    for both; the reason is in the operators' log. An address written in the URL is the
    tenant's own words: its refusal still says why."""
    caplog.set_level(logging.INFO, logger="parametric.webhooks")
    with pytest.raises(Refused) as inside:
        await resolve("http://localhost:9000/hook", STRICT)
    with pytest.raises(Unresolved) as nowhere:
        await resolve("http://receiver.example.invalid:9000/hook", STRICT)
    assert str(inside.value).replace("localhost", "HOST") == str(nowhere.value).replace("receiver.example.invalid", "HOST")
    for words in ("127.0.0.1", "::1", "loopback", "resolves to", "gaierror"):
        assert words not in str(inside.value) and words not in str(nowhere.value), words
    assert "loopback" in caplog.text and "gaierror" in caplog.text  # the operators' log says which
    with pytest.raises(Refused, match="127.0.0.1 is a loopback address"):
        await resolve("http://127.0.0.1:9000/hook", STRICT)


def test_the_policy_comes_from_the_settings(monkeypatch):
    monkeypatch.delenv("WEBHOOK_ALLOW_LOOPBACK", raising=False)
    settings = load_settings()
    assert settings.webhook_allow_loopback is False  # off unless said
    policy = policy_of(dataclasses.replace(settings, api_port=8123, temporal_address="127.0.0.1:7999",
                                           public_base_url="https://api.example.com:8443"))
    assert policy.allow_loopback is False and {8123, 7999, 8443, 8233} <= policy.service_ports
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
    assert policy_of(load_settings()).allow_loopback is True
