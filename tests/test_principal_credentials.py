"""Per-principal credentials (issue 15, part 6): a server whose secret is ``per_principal`` gets
one upstream process per calling principal, each with that principal's own value, and a
principal without one gets ``credential_missing`` before anything is started for them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import READ, is_running, scripted_server, tool_def, write_config, write_spec
from toolpool import Config, Pool, Ticket
from toolpool.calls import Envelope, Session
from toolpool.store import SecretKey, Store
from toolpool.testing import EventRecorder
from toolpool.upstream import PrincipalLinks

pytestmark = pytest.mark.anyio

TIMEOUT = 30
WHOAMI = "mcp__s__whoami"
VALUES = {"": "admission-token-0", "ana": "ana-token-1111", "bob": "bob-token-2222"}


def _config(tmp_path: Path, **fields: Any) -> Config:
    spec = write_spec(tmp_path, pages=[[tool_def("whoami")]], whoami_env="TOKEN")
    table = scripted_server("s", spec, {"whoami": {"action": "whoami", **READ}}, **fields)
    table = table.replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token", per_principal = true } }',
    )
    return write_config(tmp_path, table, pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"})


def _store_values(config: Config, key: SecretKey, values: dict[str, str] = VALUES) -> None:
    with Store.open(config.store_url, key=key) as store:
        for principal, value in values.items():
            store.secrets.set_secret("api_token", value, "tests", principal=principal)


def _session(pool: Pool, principal: str) -> Session:
    return pool.session(principal, Ticket.allow("*", principal=principal))


def _who(envelope: Envelope) -> dict[str, Any]:
    assert envelope.code == "ok", envelope
    found: dict[str, Any] = json.loads(envelope.text)
    return found


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


async def _whoami(session: Session) -> Envelope:
    return await session.call(session.snapshot(), WHOAMI, {})


async def test_two_principals_get_two_processes_each_holding_only_its_own_secret(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana, bob = _session(pool, "ana"), _session(pool, "bob")
            ana_first, bob_first = _who(await _whoami(ana)), _who(await _whoami(bob))
            ana_again = _who(await _whoami(ana))
        (tool,) = pool.snapshot().tools
        assert isinstance(tool.owner, PrincipalLinks)
        assert tool.owner.principals == ("ana", "bob")
    assert ana_first["sha256"] == _digest(VALUES["ana"]) and bob_first["sha256"] == _digest(VALUES["bob"])
    assert ana_first["pid"] != bob_first["pid"]
    assert ana_again["pid"] == ana_first["pid"]  # the principal's connection is kept
    assert not is_running(ana_first["pid"]) and not is_running(bob_first["pid"])


async def test_the_redactor_replaces_each_principals_value_in_that_principals_results(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            envelopes = [await _whoami(_session(pool, "ana")), await _whoami(_session(pool, "bob"))]
        assert pool.store is not None
        audit = repr(pool.store.audit.audit_events())
    for envelope in envelopes:
        assert _who(envelope)["value"] == "[secret:api_token]"
    shown = repr(envelopes) + repr(recorder.events) + audit
    assert all(value not in shown for value in VALUES.values())


async def test_a_principal_without_the_secret_gets_credential_missing_and_no_process(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            carol = await _whoami(_session(pool, "carol"))
            nobody = await pool.call(pool.snapshot(), WHOAMI, {}, ticket=None)
            by_ticket = await pool.call(
                pool.snapshot(), WHOAMI, {}, ticket=Ticket.allow("*", principal="ana")
            )
        (tool,) = pool.snapshot().tools
        assert isinstance(tool.owner, PrincipalLinks)
        assert tool.owner.principals == ("ana",)
    assert carol.code == "credential_missing"
    assert carol.text == "no credential of yours for s: toolpool secrets set api_token --principal carol"
    assert nobody.code == "credential_missing" and "--principal NAME" in nobody.text
    assert _who(by_ticket)["sha256"] == _digest(VALUES["ana"])  # outside a session: the ticket's principal
    assert recorder.of_kind("mcp.principal_connected") and all(
        event.detail["principal"] == "ana" for event in recorder.of_kind("mcp.principal_connected")
    )


async def test_an_idle_principal_connection_is_closed_and_its_process_reaped(tmp_path: Path) -> None:
    config = _config(tmp_path, idle_close_s=0.2)
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana = _session(pool, "ana")
            first = _who(await _whoami(ana))
            closed = await recorder.wait_for("mcp.principal_closed", "s")
            assert not is_running(first["pid"])
            second = _who(await _whoami(ana))  # opened again on the next use
        assert closed.detail == {"principal": "ana", "reason": "idle"}
        assert second["pid"] != first["pid"] and second["sha256"] == _digest(VALUES["ana"])
        assert pool.connected == ("s",)  # the alias itself stays admitted


async def test_closing_the_pool_reaps_every_principals_process(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    principals = {f"p{n}": f"token-of-p{n}" for n in range(4)}
    _store_values(config, key, {"": VALUES[""], **principals})
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            pids = [_who(await _whoami(_session(pool, principal)))["pid"] for principal in principals]
            assert all(is_running(pid) for pid in pids)
    assert len(set(pids)) == len(principals)
    assert not any(is_running(pid) for pid in pids)


async def test_disconnect_closes_every_principals_connection(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            pids = [_who(await _whoami(_session(pool, who)))["pid"] for who in ("ana", "bob")]
            await pool.disconnect("s")
            assert not any(is_running(pid) for pid in pids)


async def test_a_dead_principal_connection_is_replaced_on_next_use(tmp_path: Path) -> None:
    import os
    import signal

    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana, bob = _session(pool, "ana"), _session(pool, "bob")
            first = _who(await _whoami(ana))
            bob_pid = _who(await _whoami(bob))["pid"]
            os.kill(first["pid"], signal.SIGKILL)
            lost = await recorder.wait_for("mcp.principal_closed", "s")
            second = _who(await _whoami(ana))
            assert _who(await _whoami(bob))["pid"] == bob_pid  # bob's connection never noticed
    assert lost.detail == {"principal": "ana", "reason": "lost"}
    assert second["pid"] != first["pid"] and second["sha256"] == _digest(VALUES["ana"])


async def test_a_principal_whose_server_publishes_other_tools_is_refused_with_an_event(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana = _session(pool, "ana")
            before = _who(await _whoami(ana))
            # The server re-reads its spec at every start: bob's process publishes one more tool.
            write_spec(tmp_path, pages=[[tool_def("whoami"), tool_def("extra")]], whoami_env="TOKEN")
            refused = await _whoami(_session(pool, "bob"))
            event = await recorder.wait_for("mcp.principal_refused", "s")
            after = _who(await _whoami(ana))
    assert refused.code == "mcp_connection_lost" and "bob" not in refused.text
    assert event.detail["principal"] == "bob" and "changed" in str(event.detail["reason"])
    assert after["pid"] == before["pid"]  # ana's connection, admitted as it was, carries on


async def test_a_rotated_secret_gets_a_fresh_connection_and_a_deleted_one_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key)
    async with Pool(config, secret_key=key) as pool:
        assert pool.store is not None
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana = _session(pool, "ana")
            first = _who(await _whoami(ana))
            pool.store.secrets.set_secret("api_token", "ana-rotated-3333", "tests", principal="ana")
            rotated = _who(await _whoami(ana))
            pool.store.secrets.delete_secret("api_token", "tests", principal="ana")
            deleted = await _whoami(ana)
    assert rotated["pid"] != first["pid"] and rotated["sha256"] == _digest("ana-rotated-3333")
    assert not is_running(first["pid"])
    assert deleted.code == "credential_missing"


async def test_connect_admits_with_the_admit_as_principals_credentials(tmp_path: Path) -> None:
    config = _config(tmp_path, admit_as="ana")
    key = SecretKey.generate()
    _store_values(config, key, {"ana": VALUES["ana"]})  # no pool-wide value at all
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana = _who(await _whoami(_session(pool, "ana")))
    assert ana["sha256"] == _digest(VALUES["ana"])


async def test_connect_without_admission_credentials_names_the_missing_secret(tmp_path: Path) -> None:
    from toolpool import MissingSecret

    config = _config(tmp_path)
    key = SecretKey.generate()
    _store_values(config, key, {"ana": VALUES["ana"]})
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(MissingSecret, match="api_token"):
            await pool.connect("s")
        assert pool.connected == ()


async def test_a_read_retry_goes_through_a_fresh_connection_of_the_same_principal(tmp_path: Path) -> None:
    config = _config(tmp_path, retry={"attempts": 1, "backoff_ms": 0})
    # The first call's process exits; the retry opens ana's connection again.
    write_spec(
        tmp_path,
        pages=[[tool_def("whoami")]],
        whoami_env="TOKEN",
        call_count_file=str(tmp_path / "calls"),
        fail_first_calls=1,
    )
    key = SecretKey.generate()
    _store_values(config, key)
    recorder = EventRecorder()
    async with Pool(config, secret_key=key, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            retried = _who(await _whoami(_session(pool, "ana")))
        assert pool.connected == ("s",) and len(pool.snapshot().tools) == 1
    assert retried["sha256"] == _digest(VALUES["ana"])
    assert recorder.of_kind("mcp.connection_lost") == []  # the alias's tools were never revoked


async def test_one_principals_failing_connection_opens_only_that_principals_breaker(tmp_path: Path) -> None:
    count = tmp_path / "calls.count"
    spec = write_spec(
        tmp_path,
        pages=[[tool_def("whoami")]],
        whoami_env="TOKEN",
        call_count_file=str(count),
        fail_first_calls=1,
    )
    table = scripted_server("s", spec, {"whoami": {"action": "whoami", **READ}}, breaker_failures=1)
    table = table.replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token", per_principal = true } }',
    )
    config = write_config(tmp_path, table, pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"})
    key = SecretKey.generate()
    _store_values(config, key)
    async with Pool(config, secret_key=key) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            ana, bob = _session(pool, "ana"), _session(pool, "bob")
            died = await _whoami(ana)  # ana's server died mid-call
            assert died.code == "mcp_connection_lost" and "your connection to it was closed" in died.text
            assert (await _whoami(ana)).code == "circuit_open"  # ana's breaker opened (threshold 1)
            assert _who(await _whoami(bob))["sha256"] == _digest(VALUES["bob"])  # bob's calls go on
