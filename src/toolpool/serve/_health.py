"""``/healthz`` and ``/readyz``: what a load balancer or an orchestrator asks a replica.

``/healthz`` (live): 200 while the process serves HTTP at all, with the calls in flight (what
a drain waits for); a process that cannot answer it should be restarted. ``/readyz`` (ready): 200 when the replica should get requests now —
its store answers, its Redis answers (with ``[pool] redis``), it is not draining after
SIGTERM, and where aliases are wanted at least one is connected — else 503; the body says
which check failed, as counts and booleans only (no alias names, nothing from upstreams), so
both paths answer without a token. Neither is behind the failed-authentication guard or the
Host check: a health check comes from the balancer's own address, by its own name, and reads
nothing that needs guarding.
"""

from __future__ import annotations

import json

from starlette.types import Send

from toolpool.serve._headers import API_HEADERS
from toolpool.serve.gateway import Gateway

__all__ = ["HEALTHZ_PATH", "READYZ_PATH", "answer_health"]

HEALTHZ_PATH = "/healthz"
READYZ_PATH = "/readyz"


async def answer_health(path: str, method: str, gateway: Gateway, send: Send) -> None:
    """Answer ``path`` (one of the two above) for ``method``."""
    if method not in ("GET", "HEAD"):
        await _answer(send, 405, {"error": "use GET"}, head=False, allow=True)
        return
    head = method == "HEAD"
    if path == HEALTHZ_PATH:
        live = {"live": True, "draining": gateway.draining, "calls_in_flight": gateway.pool.calls_in_flight}
        await _answer(send, 200, live, head=head)
        return
    readiness = await gateway.readiness()
    body: dict[str, object] = {
        "ready": readiness.ready,
        "draining": readiness.draining,
        "store": readiness.store,
        "redis": readiness.redis,
        "upstreams": {"wanted": readiness.upstreams_wanted, "connected": readiness.upstreams_connected},
    }
    if gateway.replica is not None:
        body["replica"] = gateway.replica
    await _answer(send, 200 if readiness.ready else 503, body, head=head)


async def _answer(send: Send, status: int, body: object, *, head: bool, allow: bool = False) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"),
        *((name.encode(), value.encode()) for name, value in API_HEADERS.items()),
    ]
    if allow:
        headers.append((b"allow", b"GET, HEAD"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else data})
