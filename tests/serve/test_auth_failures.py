"""Guessing is noticed: failed authentication on ``/mcp``, ``/admin`` and the UI login is counted
per client address, logged (rate-limited), audited in aggregate (never the token guessed), and
an address that keeps failing is refused for a while (429 with ``Retry-After``) while a good
token from another address works.

``toolpool serve --http`` runs as a real process; the attacker and the good client speak from
two loopback addresses (127.0.0.1 and 127.0.0.2) with httpx.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest

from .gateway_helpers import (
    INITIALIZE,
    MCP_HEADERS,
    TEST_S,
    WAIT_S,
    copy_config,
    new_token,
    served,
    toolpool_async,
)

pytestmark = pytest.mark.anyio

ADMIN = "admin-token-for-the-guessing-tests"
WITH_ADMIN = {"TOOLPOOL_ADMIN_TOKEN": ADMIN}
LIMIT = 6


def _guarded_config(folder: Path) -> Path:
    config = copy_config(folder, ["demo_alpha"])
    text = config.read_text()
    keys = f"auth_failure_limit = {LIMIT}\nauth_failure_window_s = 120\nauth_refusal_s = 120\n"
    config.write_text(text.replace("[pool]\n", "[pool]\n" + keys, 1))
    return config


def _from(address: str, token: str | None = None) -> httpx.AsyncClient:
    """A client whose connections leave from ``address`` (a loopback address)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.AsyncClient(
        transport=httpx.AsyncHTTPTransport(local_address=address),
        headers=headers,
        timeout=httpx.Timeout(WAIT_S),
    )


async def test_an_address_that_keeps_guessing_is_refused_while_a_good_token_from_another_address_works(
    tmp_path: Path,
) -> None:
    config = _guarded_config(tmp_path)
    good = new_token(config, "ana", "--allow", "*")
    guesses = [f"tp_guess{n:04d}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" for n in range(LIMIT)]
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0", env=WITH_ADMIN) as running:
            base = running.url.removesuffix("/mcp")
            failed = []
            async with _from("127.0.0.1") as attacker:
                # no Authorization header at all guesses nothing: refused, never counted
                bare = [
                    await attacker.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
                    for _ in range(LIMIT)
                ]
                bare += [await attacker.get(f"{base}/admin/servers") for _ in range(LIMIT)]
                for n, guess in enumerate(guesses):
                    bearer = {"Authorization": f"Bearer {guess}"}
                    if n % 3 == 0:
                        failed.append(
                            await attacker.post(running.url, json=INITIALIZE, headers=MCP_HEADERS | bearer)
                        )
                    elif n % 3 == 1:
                        failed.append(await attacker.get(f"{base}/admin/servers", headers=bearer))
                    else:
                        failed.append(
                            await attacker.post(f"{base}/ui/login", data={"token": guess, "name": "x"})
                        )
                refused = [
                    await attacker.post(
                        running.url,
                        json=INITIALIZE,
                        headers=MCP_HEADERS | {"Authorization": f"Bearer {good}"},
                    ),
                    await attacker.get(f"{base}/admin/servers", headers={"Authorization": f"Bearer {ADMIN}"}),
                    await attacker.get(f"{base}/ui/login"),
                ]
            async with _from("127.0.0.2", good) as elsewhere:
                allowed = await elsewhere.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
            async with _from("127.0.0.2", ADMIN) as operator:
                admin = await operator.get(f"{base}/admin/servers")
        audit = await toolpool_async(config, "audit", "--json", "--limit", "1000")

    assert [answer.status_code for answer in bare] == [401] * (2 * LIMIT)
    assert [answer.status_code for answer in failed] == [401] * LIMIT
    assert [answer.status_code for answer in refused] == [429] * 3
    assert all(0 < int(answer.headers["retry-after"]) <= 120 for answer in refused)
    assert allowed.status_code == 200 and admin.status_code == 200
    lines = [line for line in running.stderr if "failed authentication from 127.0.0.1" in line]
    assert 1 <= len(lines) <= 2, running.stderr  # one per window, and what the stop flushed
    assert not any("127.0.0.2" in line for line in running.stderr)
    reports = [event for event in json.loads(audit.stdout) if event["action"] == "auth.failed"]
    assert {event["resource"] for event in reports} == {"127.0.0.1"}
    assert sum(event["detail"]["failures"] for event in reports) == LIMIT
    assert set().union(*(event["detail"]["planes"] for event in reports)) == {"mcp", "admin", "ui"}
    assert sum(event["detail"]["refused_requests"] for event in reports) == 3
    assert not any(guess in audit.stdout or guess in "\n".join(running.stderr) for guess in guesses)
