"""The runtime-policy keys of the configuration (issue 15): limits at pool, server, tool and
principal level, quotas, approval, retries, per-principal secrets and TLS — strict like the
rest, with errors that name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpool import ConfigError, load_config
from toolpool.config import Config
from toolpool.runtime_policy import rate_per_second

SERVER = """
[servers.alpha]
transport = "stdio"
command = "python"
args = ["-m", "toolpool.demo", "alpha"]
{server}

[servers.alpha.tools.lookup]
action = "demo.lookup"
effect = "read"
{tool}
"""


def _load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "toolpool.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def _error(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    return caught.value


def test_limits_load_at_every_level_with_a_bucket_of_one_seconds_worth_by_default(tmp_path: Path) -> None:
    text = (
        '[pool]\nrate = "100/s"\nburst = 200\nmax_concurrent_calls = 32\nredis = "redis://127.0.0.1:6379/3"\n'
        + SERVER.format(
            server='rate = "30/min"\nmax_concurrent_calls = 2',
            tool='rate = "10/s"\nburst = 20\napproval = "each_call"',
        )
        + '\n[principals.ana]\nrate = "5/s"\nquota_calls = 1000\nquota_wait_s = 600\nquota_period = "hour"\n'
        + '\n[principals."*"]\nmax_concurrent_calls = 4\nredis_down = "open"\n'
    )
    config = _load(tmp_path, text)
    assert config.pool.refill_per_s == 100 and config.pool.bucket_size == 200
    alpha = config.servers["alpha"]
    assert alpha.refill_per_s == 0.5 and alpha.bucket_size == 1 and alpha.max_concurrent_calls == 2
    lookup = alpha.tools["lookup"]
    assert lookup.bucket_size == 20 and lookup.approval == "each_call"
    ana = config.principals["ana"]
    assert ana.bucket_size == 5 and ana.has_quota and ana.quota_period == "hour"
    assert config.principals["*"].redis_down == "open" and not config.principals["*"].has_quota
    assert config.pool.redis == "redis://127.0.0.1:6379/3"


def test_rates_are_counts_per_unit() -> None:
    assert rate_per_second("10/s") == 10
    assert rate_per_second("600/min") == 10
    assert rate_per_second("3600 / h") == 1
    assert rate_per_second("8640/day") == pytest.approx(0.1)
    for bad in ("10", "ten/s", "0/s", "-1/s", "10/week"):
        with pytest.raises(ValueError, match="rate"):
            rate_per_second(bad)


def test_a_bad_rate_is_an_error_that_names_its_key_and_line(tmp_path: Path) -> None:
    error = _error(tmp_path, SERVER.format(server='rate = "fast"', tool=""))
    assert error.key == "servers.alpha.rate" and error.line == 6
    assert "10/s" in str(error)


def test_a_burst_without_a_rate_is_an_error(tmp_path: Path) -> None:
    error = _error(tmp_path, SERVER.format(server="", tool="burst = 5"))
    assert error.key.startswith("servers.alpha.tools.lookup") and "set `rate` too" in str(error)


def test_an_unknown_key_under_principals_is_an_error(tmp_path: Path) -> None:
    error = _error(tmp_path, SERVER.format(server="", tool="") + "\n[principals.ana]\nquota = 5\n")
    assert error.key == "principals.ana.quota" and error.problem == "unknown key"


def test_a_retry_is_for_read_tools_and_approval_is_none_or_each_call(tmp_path: Path) -> None:
    config = _load(tmp_path, SERVER.format(server="retry = { attempts = 2, backoff_ms = 100 }", tool=""))
    retry = config.servers["alpha"].retry
    assert retry is not None and (retry.attempts, retry.backoff_ms, retry.deadline_s) == (2, 100, None)
    error = _error(tmp_path, SERVER.format(server="", tool='approval = "sometimes"'))
    assert error.key == "servers.alpha.tools.lookup.approval"


REMOTE = """
[pool]
require_tls = {pool}

[servers.remote]
transport = "http"
url = "{url}"
allow_private_network = {private}
{extra}

[servers.remote.tools.open]
action = "tickets.open"
effect = "read"
"""


def _remote(url: str, *, pool: bool = True, private: bool = False, extra: str = "") -> str:
    return REMOTE.format(url=url, pool=str(pool).lower(), private=str(private).lower(), extra=extra)


def test_require_tls_refuses_plain_http_to_a_remote_host(tmp_path: Path) -> None:
    error = _error(tmp_path, _remote("http://tickets.example/mcp"))
    assert error.key == "servers.remote.url" and "require_tls" in str(error)
    assert _load(tmp_path, _remote("https://tickets.example/mcp")).requires_tls("remote")


def test_require_tls_keeps_plain_http_only_to_loopback_that_allows_private_networks(tmp_path: Path) -> None:
    assert _load(tmp_path, _remote("http://127.0.0.1:8123/mcp", private=True)).requires_tls("remote")
    assert _load(tmp_path, _remote("http://[::1]:8123/mcp", private=True)).requires_tls("remote")
    assert "require_tls" in str(_error(tmp_path, _remote("http://127.0.0.1:8123/mcp")))
    assert "require_tls" in str(_error(tmp_path, _remote("http://10.0.0.5/mcp", private=True)))


def test_a_server_may_require_tls_when_the_pool_does_not_and_opt_out_when_it_does(tmp_path: Path) -> None:
    assert "require_tls" in str(
        _error(tmp_path, _remote("http://tickets.example/mcp", pool=False, extra="require_tls = true"))
    )
    config = _load(tmp_path, _remote("http://tickets.example/mcp", extra="require_tls = false"))
    assert not config.requires_tls("remote")


def test_mutual_tls_needs_both_the_certificate_and_the_key(tmp_path: Path) -> None:
    extra = 'tls_client_cert = { secret = "client_pem" }'
    assert "both" in str(_error(tmp_path, _remote("https://tickets.example/mcp", extra=extra)))
    both = extra + '\ntls_client_key = { secret = "client_key", per_principal = true }'
    spec = _load(tmp_path, _remote("https://tickets.example/mcp", extra=both)).servers["remote"]
    assert spec.per_principal and spec.tls_client_key is not None and spec.tls_client_key.per_principal


def test_a_per_principal_secret_changes_the_spec_hash(tmp_path: Path) -> None:
    plain = _load(tmp_path, SERVER.format(server='env = { TOKEN = { secret = "t" } }', tool=""))
    per = _load(
        tmp_path, SERVER.format(server='env = { TOKEN = { secret = "t", per_principal = true } }', tool="")
    )
    assert not plain.servers["alpha"].per_principal and per.servers["alpha"].per_principal
    assert plain.servers["alpha"].spec_hash != per.servers["alpha"].spec_hash
