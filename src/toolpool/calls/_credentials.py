"""The credential check at gate 2: which link carries a call, and ``credential_missing``.

Most aliases have one link for everyone. An alias with ``per_principal`` secrets keeps one
connection per principal (``toolpool.upstream.PrincipalLinks``), and the call must go through
the caller's own. The caller is the session's principal; in the pool's default session, which
binds none, the principal of the ticket the call brings (gate 4 then checks that ticket). A
principal with no value of the secret is refused here, before anything is started for it.
"""

from __future__ import annotations

from toolpool import errors
from toolpool.calls._envelope import Envelope, refusal
from toolpool.errors import CredentialMissing
from toolpool.tickets import Ticket
from toolpool.upstream import Link
from toolpool.vetting import ExposedTool

__all__ = ["carrier"]


def carrier(
    tool: ExposedTool, session_principal: str | None, ticket: Ticket | None
) -> tuple[Link, Envelope | None]:
    """The link for this call, or the ``credential_missing`` refusal (then ``tool.owner``).

    ``session_principal`` is None for a session that binds no principal.
    """
    principal = session_principal
    if principal is None and ticket is not None:
        principal = ticket.principal
    try:
        return tool.owner.for_principal(principal), None
    except CredentialMissing as missing:
        return tool.owner, refusal(errors.CREDENTIAL_MISSING, tool.name, str(missing))
