"""Several ``toolpool serve --http`` replicas on one PostgreSQL store and one Redis, behind the
nginx configuration the project ships (``deploy/nginx.conf``), for the deployment tests.

nginx runs as this user with a prefix folder of its own (pid, logs, temporary files) and the
shipped file included in its ``http`` block, with the ports and replica names substituted:
what is tested is what operators copy. Every process is stopped and reaped on exit.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
import redis

from tests.serve.gateway_helpers import STOP_S, WAIT_S

DEPLOY = Path(__file__).parents[2] / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"
_SHIPPED_PORTS = ("8101", "8102", "8103")
_SHIPPED_FRONT = "127.0.0.1:8080"


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (bound together, then released)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@contextmanager
def redis_database(first: int) -> Iterator[str]:
    """A Redis database of this xdist worker's own (``first`` + the worker's number), empty
    before and after."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    number = first + int(worker[2:]) if worker[2:].isdigit() else first + 2
    client = redis.Redis(host="127.0.0.1", port=6379, db=number, socket_timeout=5)
    client.flushdb()
    try:
        yield f"redis://127.0.0.1:6379/{number}"
    finally:
        client.flushdb()
        client.close()


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        pytest.fail("nginx is not installed (scripts/bootstrap-tests installs it)", pytrace=False)
    return found


def rendered_config(front: int, replicas: Sequence[int], serving: int | None = None) -> str:
    """deploy/nginx.conf for replicas on ``replicas`` (r1, r2, r3) behind 127.0.0.1:``front``;
    with ``serving``, only the first that many take requests without a session (the bench's
    runs with fewer replicas)."""
    text = NGINX_CONF.read_text(encoding="utf-8")
    assert len(replicas) == len(_SHIPPED_PORTS), "the shipped file names three replicas"
    for shipped in _SHIPPED_PORTS[serving:] if serving is not None else ():
        shared = f"\n    server 127.0.0.1:{shipped} max_fails=1 fail_timeout=5s;"
        assert shared in text
        text = text.replace(shared, "", 1)  # the first: the shared upstream's
    text = text.replace(_SHIPPED_FRONT, f"127.0.0.1:{front}")
    for shipped, port in zip(_SHIPPED_PORTS, replicas, strict=True):
        text = re.sub(rf"127\.0\.0\.1:{shipped}\b", f"127.0.0.1:{port}", text)
    return text


def _prepared(folder: Path, front: int, replicas: Sequence[int], serving: int | None) -> list[str]:
    """nginx's prefix folder, written and checked (``nginx -t``); the command that runs it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toolpool.conf").write_text(rendered_config(front, replicas, serving), encoding="utf-8")
    temp = {name: folder / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    main = folder / "nginx.conf"
    main.write_text(
        "daemon off;\nworker_processes 1;\n"
        f"pid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        "http {\n  access_log off;\n"
        f"  client_body_temp_path {temp['body']};\n  proxy_temp_path {temp['proxy']};\n"
        f"  fastcgi_temp_path {temp['fastcgi']};\n  uwsgi_temp_path {temp['uwsgi']};\n"
        f"  scgi_temp_path {temp['scgi']};\n"
        f"  include {folder / 'toolpool.conf'};\n}}\n",
        encoding="utf-8",
    )
    command = [nginx_binary(), "-p", str(folder), "-c", str(main)]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert checked.returncode == 0, checked.stderr
    return command


@asynccontextmanager
async def nginx(
    folder: Path, front: int, replicas: Sequence[int], serving: int | None = None
) -> AsyncIterator[Path]:
    """nginx in front of the replicas (``serving``: see ``rendered_config``), until the block
    ends; yields its error log's path."""
    command = await anyio.to_thread.run_sync(_prepared, folder, front, replicas, serving)
    process = await anyio.open_process(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with anyio.fail_after(WAIT_S):
            while not _accepts(front):  # nginx says nothing when it is up: ask the port, bounded
                assert process.returncode is None, "nginx exited at start"
                await anyio.sleep(0.05)
        yield folder / "error.log"
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.terminate()
                with anyio.move_on_after(STOP_S):
                    await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()
            if process.stderr is not None:
                await process.stderr.aclose()


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
