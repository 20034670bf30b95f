"""The shapes of the names the configuration gives: an alias, a tool's name on its server, an
action. Kept apart from the configuration's models so that the store can check a name without
importing them (the CLI's start, ``cli._common``)."""

from __future__ import annotations

import re

__all__ = ["ACTION_PATTERN", "ALIAS_PATTERN", "REMOTE_NAME_PATTERN"]

ALIAS_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,47}$")
REMOTE_NAME_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
ACTION_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
