"""What the admin API and the web UI accept as an alias, a tool name or an actor's name.

Path patterns are the configuration's rules written without look-arounds, so that pydantic
(Rust regex), JSON Schema and a fuzzer all read them the same way:

- an alias (``toolpool.config.ALIAS_PATTERN``): 1-48 characters, ASCII letters, digits, ``-``
  and ``_``, starting with a letter or digit, never two ``_`` in a row;
- a tool name (R3): 1-128 of ``[A-Za-z0-9._-]``, except ``.`` and ``..``, which no URL can
  carry as a path segment (clients normalize them away);
- an actor's name (``X-Toolpool-Actor``, the UI's login form): a label for the audit log.
"""

from __future__ import annotations

__all__ = ["ACTOR_PATTERN", "ALIAS_MAX", "ALIAS_PATH", "TOOL_MAX", "TOOL_PATH"]

ALIAS_PATH = r"^[A-Za-z0-9](?:_?[A-Za-z0-9-])*_?$"
ALIAS_MAX = 48
TOOL_PATH = r"^(?:[A-Za-z0-9._-]*[A-Za-z0-9_-][A-Za-z0-9._-]*|\.{3,})$"
TOOL_MAX = 128
ACTOR_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$"
