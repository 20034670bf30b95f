"""``require_tls``'s one rule, in one place: checked where the configuration is read (on the
URL's host name) and again where a remote connection is made (on the address the SSRF guard
pinned), so that a name which resolves elsewhere than its spelling suggests gains nothing."""

from __future__ import annotations

from ipaddress import ip_address

__all__ = ["PLAIN_HTTP_REFUSED", "plain_http_problem"]

PLAIN_HTTP_REFUSED = (
    "require_tls refuses http://: use https:// "
    "(plain http is allowed only to loopback with allow_private_network)"
)


def plain_http_problem(host: str, *, allow_private_network: bool) -> str | None:
    """Why plain ``http://`` to ``host`` (a name or an address) breaks ``require_tls``, or
    None where it may: loopback (``localhost`` or a loopback address), and only with
    ``allow_private_network``."""
    if allow_private_network and (host.lower() == "localhost" or _is_loopback(host)):
        return None
    return PLAIN_HTTP_REFUSED


def _is_loopback(host: str) -> bool:
    try:
        return ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
