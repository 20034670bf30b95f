"""The deployment files agree with the code and with each other.

deploy/nginx.conf itself runs in tests/serve/test_replicas.py. The container files cannot be
run here (no container runtime), so what can be checked without one is checked: every
``toolpool serve`` option they use exists, every replica they start has its route in the nginx
configuration, their rewrite of that configuration leaves no loopback address behind, and
the health paths they probe are the service's.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer
import yaml

from toolpool.cli import app
from toolpool.serve import READYZ_PATH

DEPLOY = Path(__file__).parents[1] / "deploy"
NGINX = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
COMPOSE = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
UNIT = (DEPLOY / "toolpool-replica@.service").read_text(encoding="utf-8")
DOCKERFILE = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")


def _serve_options() -> set[str]:
    serve = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    return {option for parameter in serve.params for option in parameter.opts}


def _routed_replicas() -> set[str]:
    return set(re.findall(r'"~\^(\w+)\\\."', NGINX))


def test_every_replica_compose_starts_has_its_route_in_the_nginx_configuration() -> None:
    replicas = {
        command[command.index("--replica-id") + 1]
        for service in COMPOSE["services"].values()
        if "--replica-id" in (command := service.get("command", []))
    }
    assert replicas == {"r1", "r2", "r3"} == _routed_replicas()
    assert {"postgres", "redis", "nginx"} <= set(COMPOSE["services"])


def test_the_compose_rewrite_of_the_nginx_configuration_leaves_no_loopback_address() -> None:
    script = COMPOSE["services"]["nginx"]["command"][-1]
    words = shlex.split(script)
    rewritten = NGINX
    for index, word in enumerate(words):
        if word == "-e":
            _, pattern, replacement, _flags = words[index + 1].split("/")
            rewritten = re.sub(pattern, replacement, rewritten)
    directives = "\n".join(line.split("#", 1)[0] for line in rewritten.splitlines())
    assert "127.0.0.1" not in directives
    assert {"r1:8100", "r2:8100", "r3:8100"} <= set(re.findall(r"r\d:8100", rewritten))


def test_the_deployment_files_use_only_options_toolpool_serve_has() -> None:
    known = _serve_options()
    assert {"--http", "--replica-id", "--public-host", "--grace-s"} <= known
    exec_start = re.search(r"^ExecStart=(.*?[^\\])$", UNIT, re.MULTILINE | re.DOTALL)
    assert exec_start is not None
    launch = [line for line in DOCKERFILE.splitlines() if line.startswith(("ENTRYPOINT", "CMD"))]
    used = set(re.findall(r"(--[a-z][a-z-]+)", exec_start.group(1) + "\n".join(launch)))
    for service in COMPOSE["services"].values():
        used |= {
            word for word in service.get("command", []) if isinstance(word, str) and word.startswith("--")
        }
    used -= {"--save", "--appendonly"}  # redis-server's own
    assert used <= known, used - known


def test_the_unit_drains_before_systemd_kills_and_names_its_replica() -> None:
    grace = float(re.search(r"--grace-s (\d+)", UNIT).group(1))  # type: ignore[union-attr]
    stop = float(re.search(r"TimeoutStopSec=(\d+)", UNIT).group(1))  # type: ignore[union-attr]
    assert "KillSignal=SIGTERM" in UNIT and stop > grace
    assert "--replica-id %i" in UNIT


def test_the_container_health_check_asks_the_readiness_path() -> None:
    assert f"/{READYZ_PATH.strip('/')}'" in DOCKERFILE
    assert "STOPSIGNAL SIGTERM" in DOCKERFILE
