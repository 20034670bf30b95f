"""``toolpool tools`` at scale keeps what it shows: the listing cached beside the config is used
only for that very text, only when it is as private as the config and its body is the one its
hash names; the sync it skips never hides a change another process made, and after one it syncs
from the cache without reading the config; and the command never imports the pool or the SDK."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolpool import load_config
from toolpool.store import ImportedTool, Store

_TIMEOUT_S = 180.0
_HASH = "sha256:" + "0" * 64
_HEAVY = ("mcp", "mcp_types", "toolpool.pool", "toolpool.serve.gateway", "uvicorn", "fastapi", "openai")


def _config(folder: Path, tools: tuple[str, ...] = ("lookup", "send")) -> Path:
    lines = ["[servers.alpha]", 'transport = "stdio"', 'command = "python"']
    for name in tools:
        lines += [f"[servers.alpha.tools.{name}]", f'action = "alpha.{name}"', 'effect = "read"']
    path = folder / "toolpool.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _tools(config: Path, *more: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOOLPOOL_")}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", "tools", "--json", "--config", str(config), *more],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        env=env | {"NO_COLOR": "1"},
        check=False,
    )


def _listed(config: Path) -> dict[str, dict[str, object]]:
    done = _tools(config)
    assert done.returncode == 0, done.stderr
    return {row["tool"]: row for row in json.loads(done.stdout)}


def _cache(config: Path) -> Path:
    return config.with_name(f".{config.name}.listing")


def _cached(config: Path) -> tuple[dict[str, Any], list[Any]]:
    """The cache's head and body: one line of JSON, then ``[aliases, tools]``."""
    head, _, body = _cache(config).read_bytes().partition(b"\n")
    return json.loads(head), json.loads(body)


def _keep(config: Path, head: dict[str, Any], body: list[Any], *, body_hash: str | None = None) -> None:
    """Write a cache as the command does, its body under its sha256 (or ``body_hash``)."""
    text = json.dumps(body).encode()
    head = head | {"body": body_hash or "sha256:" + hashlib.sha256(text).hexdigest()}
    _cache(config).write_bytes(json.dumps(head).encode() + b"\n" + text)


def _run(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOOLPOOL_")}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        env=env,
        check=False,
    )


def _cli(config: Path, *args: str) -> None:
    done = _run(config, *args)
    assert done.returncode == 0, done.stderr


def test_a_change_made_by_another_process_shows_on_the_next_listing(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert _listed(config)["lookup"]["state"] == "disabled"
    with Store.open(load_config(config).store_url) as store:
        store.tools.record_import(
            "alpha", [ImportedTool("lookup", {"name": "lookup"}, _HASH, "pass", 0.0)], "t"
        )
        store.tools.enable("alpha", "lookup", "ana")
    assert _listed(config)["lookup"]["state"] == "enabled"
    with Store.open(load_config(config).store_url) as store:
        store.tools.disable("alpha", "lookup", "ana")
    assert _listed(config)["lookup"]["state"] == "disabled"
    assert _listed(config)["lookup"]["state"] == "disabled"  # the sync skipped this time


def test_the_listing_is_cached_privately_and_a_changed_config_is_read_again(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert sorted(_listed(config)) == ["lookup", "send"]
    assert os.stat(_cache(config)).st_mode & 0o777 == 0o600
    _config(tmp_path, ("lookup", "fetch"))
    assert sorted(_listed(config)) == ["fetch", "lookup"]
    with Store.open(load_config(config).store_url) as store:
        states = {state.name: state for state in store.tools.tool_states("alpha")}
    assert states["fetch"].action == "alpha.fetch"  # the new text was synced, not skipped


@pytest.mark.parametrize(
    "spoil", ["group-writable", "symlink", "another path", "garbage", "body hash", "cut short", "old format"]
)
def test_a_cache_that_is_not_believed_is_ignored(tmp_path: Path, spoil: str) -> None:
    config = _config(tmp_path)
    _listed(config)
    head, (aliases, _) = _cached(config)
    planted = [["alpha", "planted", "alpha.planted", "read", False, None, "none", None, None]]
    _keep(config, head, [aliases, planted])  # believed as it stands: only the spoil below is wrong
    cache = _cache(config)
    if spoil == "group-writable":
        cache.chmod(0o620)
    elif spoil == "symlink":
        target = tmp_path / "elsewhere"
        cache.rename(target)
        cache.symlink_to(target)
    elif spoil == "another path":
        _keep(config, head | {"source": str(tmp_path / "other.toml")}, [aliases, planted])
    elif spoil == "garbage":
        cache.write_text("{not json", encoding="utf-8")
    elif spoil == "body hash":
        _keep(config, head, [aliases, planted], body_hash="sha256:" + "0" * 64)
    elif spoil == "cut short":
        cache.write_bytes(cache.read_bytes()[:-3])
    else:  # what the previous format held: one JSON object, every other field in line
        old = {key: head[key] for key in ("hash", "source", "store_url")}
        cache.write_text(
            json.dumps(old | {"format": "toolpool-listing-1", "tools": planted}), encoding="utf-8"
        )
    assert sorted(_listed(config)) == ["lookup", "send"]


def test_a_believed_cache_is_what_lists(tmp_path: Path) -> None:
    # The control for the test above: a cache written as the command writes it is believed.
    config = _config(tmp_path)
    _listed(config)
    head, (aliases, _) = _cached(config)
    _keep(
        config,
        head,
        [aliases, [["alpha", "planted", "alpha.planted", "read", False, None, "none", None, None]]],
    )
    assert sorted(_listed(config)) == ["planted"]


def test_after_another_process_changed_the_store_the_cache_is_synced_and_the_config_not_read(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    assert _listed(config)["lookup"]["state"] == "disabled"
    _cli(config, "enable", "alpha", "lookup")  # another process: a release
    assert _listed(config)["lookup"]["state"] == "enabled"

    # The cache now says what the config does not (send's action): whatever the next listing
    # and its sync show of it can only come from the cache, never from the config's text.
    head, (aliases, tools) = _cached(config)
    for row in tools:
        if row[1] == "send":
            row[2] = "alpha.from_cache"
    _keep(config, head, [aliases, tools])
    _cli(config, "disable", "alpha", "lookup")  # another process again: a release

    listed = _listed(config)
    assert listed["lookup"]["state"] == "disabled"
    assert listed["send"]["action"] == "alpha.from_cache"
    with Store.open(load_config(config).store_url) as store:
        states = {state.name: state for state in store.tools.tool_states("alpha")}
        sync = store.audit.audit_events()[-1]
    assert states["send"].action == "alpha.from_cache"  # synced from the cache's policy
    assert (sync.action, sync.resource) == ("policy.sync", "alpha")
    assert sync.detail["changes"] == [{"tool": "send", "action": "alpha.from_cache"}]


def test_toolpool_tools_never_imports_the_pool_or_the_sdk(tmp_path: Path) -> None:
    config = _config(tmp_path)
    probe = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
        f"sys.argv = ['toolpool', 'tools', '--config', {str(config)!r}]\n"
        "from toolpool.cli import main\n"
        "main()\n"
    )
    for run in ("first", "again"):
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
        )
        assert done.returncode == 0, done.stderr
        assert "alpha.lookup" in done.stdout, run
        modules = set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))
        assert "toolpool.store" in modules  # the probe sees the command's imports
        assert not [name for name in modules if name.split(".")[0] in _HEAVY or name in _HEAVY], run


def test_tools_json_is_byte_for_byte_what_json_dumps_writes(tmp_path: Path) -> None:
    config = _config(tmp_path, ("lookup", "send", "gone"))
    config.write_text(config.read_text(encoding="utf-8").replace('"alpha.gone"', "false"), encoding="utf-8")
    odd = ('ünïcode "quoted" \\ back', "tab\there\nnewline", "\x1b[31mred")
    _listed(config)
    with Store.open(load_config(config).store_url) as store:
        store.tools.record_import(
            "alpha",
            [
                ImportedTool("lookup", {"name": "lookup"}, _HASH, "drop", 3.0, odd),
                ImportedTool("send", {"name": "send"}, _HASH, "pass", 0.0),
            ],
            "t",
        )
        store.tools.enable("alpha", "send", "ana")
    done = _tools(config)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert done.stdout == json.dumps(rows, indent=2, default=str) + "\n"
    by_tool = {row["tool"]: row for row in rows}
    assert by_tool["lookup"]["reasons"] == list(odd) and by_tool["send"]["state"] == "enabled"
    assert by_tool["gone"]["state"] == "forbidden" and by_tool["gone"]["action"] is None


def test_enable_and_disable_read_the_cached_listing_not_the_config(tmp_path: Path) -> None:
    # At 20,000 servers a change must not read 13 MB of TOML either: the row it shows and the
    # sync it makes come from the cache when the cache holds this very text.
    config = _config(tmp_path)
    _listed(config)
    head, (aliases, tools) = _cached(config)
    for row in tools:
        if row[1] == "send":
            row[2] = "alpha.from_cache"
    _keep(config, head, [aliases, tools])
    for command in ("enable", "disable"):
        done = _run(config, command, "alpha", "send", "--json")
        assert done.returncode == 0, done.stderr
        shown = json.loads(done.stdout)
        assert (shown["action"], shown["state"]) == ("alpha.from_cache", f"{command}d")
    missing = _run(config, "enable", "alpha", "nothing")
    assert missing.returncode == 1
    assert missing.stderr == "toolpool: error: alpha/nothing is not in the configuration\n"
