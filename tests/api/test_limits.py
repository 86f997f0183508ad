"""Limits and headers (issue 24, finding 6 and "Headers"): the token endpoint's limit keys on
the real peer address (X-Forwarded-For only from configured proxies), failed
authentications are limited, every answer carries nosniff and the RateLimit fields,
authenticated answers `Cache-Control: no-store`, and no server banner.

Apps with small limits of their own where a limit is the point; the API served as
`parametric api` serves it (a subprocess) where uvicorn's own behaviour is."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from api import ratelimit
from api.peer import TrustedProxies, limit_key
from tests.api.test_auth import TOKEN_PATH, form
from tests.conftest import Server, assert_problem, free_port

RATE_FIELDS = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy")


def strict_app(settings, temporal_env, **limits):
    """An app with limits of its own: a scope of its own too, so it shares no budget with the
    suite's other apps (API processes of one scope share them: api/ratelimit.py)."""
    from api.app import create_app

    return create_app(replace(settings, rate_limit_scope=uuid.uuid4().hex, **limits), temporal_env.client)


def test_forwarded_for_counts_only_from_trusted_proxies():
    none = TrustedProxies([])
    assert none.client("127.0.0.1", [(b"x-forwarded-for", b"9.9.9.9")]) == "127.0.0.1"
    proxies = TrustedProxies(["127.0.0.1", "10.0.0.0/8"])
    xff = [(b"x-forwarded-for", b"6.6.6.6, 1.2.3.4, 10.1.1.1")]
    # The right-most hop that is not a proxy: 6.6.6.6 was written by the client itself.
    assert proxies.client("127.0.0.1", xff) == "1.2.3.4"
    assert proxies.client("8.8.8.8", xff) == "8.8.8.8"  # not from a proxy: ignored
    forwarded = TrustedProxies(["127.0.0.1"], "forwarded")
    assert forwarded.client("127.0.0.1", [(b"forwarded", b'for="[2001:db8::1]:443";proto=https')]) == "2001:db8::1"
    assert proxies.client("127.0.0.1", [(b"x-forwarded-for", b"not-an-address")]) == "127.0.0.1"
    assert proxies.client("127.0.0.1", []) == "127.0.0.1"
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        TrustedProxies(["10.0.0.0/33"])


async def _served_api(port: int, log: Path, **env: str) -> asyncio.subprocess.Process:
    """`parametric api` in a process of its own, once it answers."""
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "api.cli", "api", "--port", str(port),
            env={**os.environ, "API_PORT": str(port), **env}, stdout=out, stderr=out,
        )
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            try:
                await client.get(f"http://127.0.0.1:{port}/.well-known/jwks.json")
                return proc
            except httpx.HTTPError:
                assert proc.returncode is None, f"the API process exited: {log.read_text()[-2000:]}"
                await asyncio.sleep(0.1)
    proc.kill()
    raise AssertionError("the API did not come up")


async def test_served_api_ignores_forwarded_for_from_an_untrusted_peer(tenant, tmp_path):
    """Finding 6: a rotating X-Forwarded-For gave every token request a fresh bucket (uvicorn
    believes it from 127.0.0.1 by default). Served as `parametric api` serves it."""
    port = free_port()
    proc = await _served_api(port, tmp_path / "api.log", TOKEN_RATE_PER_SECOND="1")
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            codes = []
            for i in range(8):
                r = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials),
                                      headers={"X-Forwarded-For": f"203.0.113.{i + 1}"})
                codes.append(r.status_code)
            assert codes[0] == 200 and 429 in codes, codes
            limited = r if r.status_code == 429 else None
            assert limited is not None and limited.json()["error"] == "slow_down"
            assert int(limited.headers["retry-after"]) >= 1
            assert "server" not in r.headers, r.headers
    finally:
        proc.terminate()
        await proc.wait()


async def test_forwarded_for_from_a_trusted_proxy_names_the_client(settings, database, temporal_env, tenant):
    app = strict_app(settings, temporal_env, token_rate_per_second=1, trusted_proxies=("127.0.0.1",))
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        for i in range(6):  # each a client of its own behind the proxy: none limited
            r = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials),
                                  headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
            assert r.status_code == 200, (i, r.text)
        # The same client behind the proxy, whatever it writes to the left of its hop.
        codes = [
            (await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials),
                               headers={"X-Forwarded-For": f"10.9.9.{i}, 198.51.100.200"})).status_code
            for i in range(6)
        ]
        assert 429 in codes, codes


async def test_failed_bearer_tokens_are_limited_per_address(settings, database, temporal_env, tenant):
    """Finding 6: failed bearer tokens were never limited. After the budget of failures the
    address's failing attempts are answered 429; another address (behind a trusted proxy)
    is not. A good credential from the failing address is not refused (issue 33, section 4:
    tests below)."""
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3,
                     trusted_proxies=("127.0.0.1",))
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        bad = {"Authorization": "Bearer not.a.token", "x-tenant-id": tenant.id}
        codes = [(await client.get("/quotes", headers=bad)).status_code for _ in range(5)]
        assert codes[:3] == [401, 401, 401] and codes[3:] == [429, 429], codes
        refused = await client.get("/quotes", headers=bad)
        body = assert_problem(refused, 429)
        assert "failed authentications" in body["detail"]
        assert int(refused.headers["retry-after"]) >= 1
        elsewhere = await client.get("/quotes", headers={**bad, "X-Forwarded-For": "192.0.2.77"})
        assert elsewhere.status_code == 401, elsewhere.text
        # An unknown API key on the travel surface counts the same way.
        key = {"Authorization": "Bearer unknown-key", "X-Forwarded-For": "192.0.2.78"}
        travel = [(await client.get(f"/travel/{tenant.id}/coverages", headers=key)).status_code for _ in range(4)]
        assert travel == [401, 401, 401, 429], travel


async def test_failures_from_an_address_never_lock_its_good_callers_out(settings, database, temporal_env, tenant,
                                                                          other_tenant):
    """Issue 33, section 4: 22 bad bearer tokens from one address, then another tenant's valid
    token from it was answered 429, and its right client secret 429 `slow_down` (behind a NAT,
    or a proxy not in TRUSTED_PROXIES, one misconfigured client took a whole insurer down).
    The credential is checked first: failing attempts are counted and refused, good ones
    never are. One address (no trusted proxy): the socket's."""
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        bad = {"Authorization": "Bearer not.a.token", "x-tenant-id": tenant.id}
        codes = [(await client.get("/quotes", headers=bad)).status_code for _ in range(30)]
        assert codes[:3] == [401] * 3 and codes[3:] == [429] * 27, codes
        for who in (other_tenant, tenant):  # valid tokens from the same address
            for _ in range(3):
                r = await client.get("/quotes", headers=await who.headers())
                assert r.status_code == 200, r.text
        key = {"Authorization": f"Bearer {other_tenant.credentials['api_key']}"}
        travel = await client.get(f"/travel/{other_tenant.id}/parametric-event?validated_day=2026-01-01", headers=key)
        assert travel.status_code == 200, travel.text
        # The failing caller is still refused (its good neighbours spent nothing of its budget).
        assert_problem(await client.get("/quotes", headers=bad), 429)
        assert (await client.get(f"/travel/{tenant.id}/coverages", headers={"Authorization": "Bearer nope"})).status_code == 429

        # The token endpoint: 30 wrong secrets for one tenant's client, then right ones.
        wrong = form(tenant.credentials, client_secret="guess")
        codes = [(await client.post(TOKEN_PATH.format(tenant.id), data=wrong)).status_code for _ in range(30)]
        assert 401 not in codes and set(codes) == {429}, codes  # the address spent its budget above
        for who in (other_tenant, tenant):
            r = await client.post(TOKEN_PATH.format(who.id), data=form(who.credentials))
            assert r.status_code == 200, r.text
            token = r.json()["access_token"]
            r = await client.get("/quotes", headers={"Authorization": f"Bearer {token}", "x-tenant-id": who.id})
            assert r.status_code == 200, r.text
        r = await client.post(TOKEN_PATH.format(other_tenant.id), data=form(other_tenant.credentials, client_secret="x"))
        assert r.status_code == 429 and r.json()["error"] == "slow_down", r.text


async def test_a_fresh_address_failing_at_the_token_endpoint_gets_401_then_slow_down(settings, database, temporal_env,
                                                                                      tenant):
    """The budget of failures, counted at the token endpoint alone: wrong secrets get
    `invalid_client` up to the burst, `slow_down` beyond it, and a right secret its token."""
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        wrong = form(tenant.credentials, client_secret="guess")
        answers = [await client.post(TOKEN_PATH.format(tenant.id), data=wrong) for _ in range(30)]
        assert [a.status_code for a in answers] == [401] * 3 + [429] * 27
        assert {a.json()["error"] for a in answers[3:]} == {"slow_down"}
        assert int(answers[-1].headers["retry-after"]) >= 1
        right = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials))
        assert right.status_code == 200, right.text


async def test_failed_client_secrets_are_limited_per_address_and_client(settings, database, temporal_env, tenant):
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        wrong = form(tenant.credentials, client_secret="guess")
        codes = [(await client.post(TOKEN_PATH.format(tenant.id), data=wrong)).status_code for _ in range(3)]
        assert codes == [401, 401, 401], codes
        r = await client.post(TOKEN_PATH.format(tenant.id), data=wrong)
        assert r.status_code == 429 and r.json()["error"] == "slow_down", r.text
        assert int(r.headers["retry-after"]) >= 1
        # A right secret from the same address is not refused (issue 33, section 4).
        r = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials))
        assert r.status_code == 200, r.text


async def test_every_request_counts_against_its_address(settings, database, temporal_env):
    app = strict_app(settings, temporal_env, peer_rate_per_second=1, peer_rate_burst=2)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        answers = [await client.get("/.well-known/jwks.json") for _ in range(4)]
        assert [a.status_code for a in answers][:2] == [200, 200] and answers[-1].status_code == 429
        assert_problem(answers[-1], 429)
        assert answers[0].headers["ratelimit-limit"] == "2" and answers[0].headers["ratelimit-remaining"] == "1"
        assert answers[-1].headers["ratelimit-remaining"] == "0"


async def test_every_answer_carries_the_security_and_ratelimit_headers(http, tenant):
    answers = {
        "public": await http.get("/health"),
        "unknown path": await http.get("/no-such-path"),
        "authenticated": await tenant.get("/index-definitions"),
        "bad token": await http.get("/quotes", headers={"Authorization": "Bearer x.y.z", "x-tenant-id": tenant.id}),
        "bad input": await tenant.get("/quotes?size=0"),
        "token": await http.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials)),
    }
    for what, r in answers.items():
        assert r.headers.get("x-content-type-options") == "nosniff", (what, r.headers)
        assert "server" not in r.headers, (what, r.headers)
        for field in RATE_FIELDS:
            assert field in r.headers, (what, field, r.headers)
        assert int(r.headers["ratelimit-remaining"]) <= int(r.headers["ratelimit-limit"]), what
    for what in ("authenticated", "bad token", "bad input", "token"):
        assert answers[what].headers["cache-control"] == "no-store", what
    assert answers["authenticated"].status_code == 200
    assert "no-store" not in answers["public"].headers.get("cache-control", "")


# --- review of issue 24 (finding 6): the one header to trust ------------------------------


def test_only_the_configured_forwarding_header_is_believed():
    """A proxy that appends `Forwarded` passes the client's own X-Forwarded-For through: with
    TRUSTED_PROXY_HEADER=forwarded that X-Forwarded-For is the client's words, and ignored
    (it used to win over Forwarded whenever present)."""
    both = [(b"x-forwarded-for", b"6.6.6.6"), (b"forwarded", b"for=198.51.100.7")]
    assert TrustedProxies(["127.0.0.1"], "forwarded").client("127.0.0.1", both) == "198.51.100.7"
    assert TrustedProxies(["127.0.0.1"], "x-forwarded-for").client("127.0.0.1", both) == "6.6.6.6"
    # The default header is X-Forwarded-For; Forwarded alone is then not believed either.
    assert TrustedProxies(["127.0.0.1"]).client("127.0.0.1", [(b"forwarded", b"for=198.51.100.7")]) == "127.0.0.1"
    with pytest.raises(ValueError, match="TRUSTED_PROXY_HEADER"):
        TrustedProxies(["127.0.0.1"], "x-real-ip")


async def test_behind_a_forwarded_proxy_the_client_cannot_choose_its_address(settings, database, temporal_env, tenant):
    app = strict_app(settings, temporal_env, token_rate_per_second=1, trusted_proxies=("127.0.0.1",),
                     trusted_proxy_header="forwarded")
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        codes = []
        for i in range(6):  # one client (as its proxy says), a fresh X-Forwarded-For of its own each time
            r = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials),
                                  headers={"X-Forwarded-For": f"203.0.113.{i + 1}", "Forwarded": "for=198.51.100.7"})
            codes.append(r.status_code)
        assert codes[0] == 200 and 429 in codes, codes


# --- review of issue 24 (finding 3): failures count against the failing callers only -------


def _behind(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


async def test_a_right_secret_is_never_refused_for_someone_elses_failures(settings, database, temporal_env, tenant):
    """Anyone who knew a client id kept that client from new tokens (its bucket of failures
    refused the right secret before checking it). The failing callers are refused; the
    client, from its own address with its own secret, is not."""
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3,
                     trusted_proxies=("127.0.0.1",))
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        wrong = form(tenant.credentials, client_secret="guess")
        codes = [(await client.post(TOKEN_PATH.format(tenant.id), data=wrong, headers=_behind(f"192.0.2.{10 + i}")))
                 .status_code for i in range(4)]
        assert codes == [401, 401, 401, 429], codes  # the client's budget of failures, across addresses
        right = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials), headers=_behind("192.0.2.99"))
        assert right.status_code == 200, right.text


async def test_a_client_id_spelled_otherwise_is_the_same_client(settings, database, temporal_env, tenant):
    """uuid.UUID reads upper case, braces, urn:uuid: and hyphenless ids: each spelling was a
    fresh budget of failures for the same client."""
    app = strict_app(settings, temporal_env, auth_failures_per_minute=1, auth_failure_burst=3,
                     trusted_proxies=("127.0.0.1",))
    cid = uuid.UUID(tenant.credentials["client_id"])
    spellings = [str(cid).upper(), f"{{{cid}}}", f"urn:uuid:{cid}", cid.hex]
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        codes = []
        for i, spelled in enumerate(spellings):
            r = await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials, client_id=spelled,
                                                                           client_secret="guess"),
                                  headers=_behind(f"192.0.2.{30 + i}"))
            codes.append(r.status_code)
        assert codes == [401, 401, 401, 429], codes


async def test_ipv6_callers_are_limited_by_their_64(settings, database, temporal_env):
    """One host or subscriber holds a whole /64: keyed per /128 it had 2^64 fresh buckets."""
    assert limit_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64" == limit_key("2001:db8:1:2::ffff")
    assert limit_key("::ffff:198.51.100.1") == "198.51.100.1" and limit_key("198.51.100.1") == "198.51.100.1"
    app = strict_app(settings, temporal_env, peer_rate_per_second=1, peer_rate_burst=2, trusted_proxies=("127.0.0.1",))
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        codes = [(await client.get("/.well-known/jwks.json", headers=_behind(f"2001:db8:1:2::{i + 1}"))).status_code
                 for i in range(3)]
        assert codes == [200, 200, 429], codes
        other = await client.get("/.well-known/jwks.json", headers=_behind("2001:db8:1:3::1"))  # another /64
        assert other.status_code == 200, other.text


@pytest.mark.parametrize("store", [ratelimit.LocalBuckets, ratelimit.SyncedBuckets])
def test_a_flood_of_fresh_keys_does_not_refill_the_limited_ones(monkeypatch, store):
    """Past MAX_KEYS the store forgot every bucket (LocalBuckets; SyncedBuckets once its
    views were all unsynced), so a flood of fresh addresses refilled the limited caller's."""
    monkeypatch.setattr(ratelimit, "MAX_KEYS", 50)
    limiter = ratelimit.RateLimiter(1 / 3600, 2, store(), "peer")
    limiter.take("attacker")
    limiter.take("attacker")
    for i in range(200):
        limiter.take(f"fresh-{i}")  # a flood of new addresses, each one request
        with pytest.raises(ratelimit.RateLimited):
            limiter.take("attacker")  # still refused: its bucket is the most recently used


async def test_a_burst_of_wrong_secrets_spends_no_good_callers_token_requests(settings, database, temporal_env, tenant,
                                                                             other_tenant):
    """Issue 33, section 4, tried against `make dev` with the documented defaults: 30 wrong
    secrets from one address within a second spent its token-request budget (10 a second,
    bursts of 30), so the right secrets of that client and of another tenant's right after
    were answered 429 `slow_down` ("too many token requests"). Failing attempts count against
    the budget of failures only; the request budget is the good callers'."""
    app = strict_app(settings, temporal_env, token_rate_per_second=1, auth_failures_per_minute=1, auth_failure_burst=3)
    async with Server(app, free_port()) as api, httpx.AsyncClient(base_url=api.base_url) as client:
        wrong = form(tenant.credentials, client_secret="guess")
        codes = [(await client.post(TOKEN_PATH.format(tenant.id), data=wrong)).status_code for _ in range(30)]
        assert codes == [401] * 3 + [429] * 27, codes
        for who in (other_tenant, tenant):
            r = await client.post(TOKEN_PATH.format(who.id), data=form(who.credentials))
            assert r.status_code == 200, r.text
        # The good callers' own budget still holds (1 a second, bursts of 3).
        codes = [(await client.post(TOKEN_PATH.format(tenant.id), data=form(tenant.credentials))).status_code
                 for _ in range(4)]
        assert 429 in codes, codes
