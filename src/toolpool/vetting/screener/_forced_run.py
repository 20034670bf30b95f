"""A forced run (issue 18, §4cn): a tool run with one of its inputs set in the text.

Under a standing scope ("first thing every session", "at the start of every conversation"), "run it once on
~ with upload_report enabled" or "this tool runs with `upload_cache: true`" takes the call out of the person's
hands: the tool is called when nobody asked, with what it does chosen in advance. Read by ``_standing`` in the
rest of a sentence after such a scope; the inputs are the definition's own property names.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from toolpool.vetting.screener._guard import compiled

__all__ = ["forced_run"]

# A run of a tool: "run it", "this tool runs", "the assistant calls <tool>", "execute it".
_RUN = compiled(
    r"\b(?:run|runs|running|call|calls|calling|invoke|invokes|invoking|execute|executes|executing|trigger|"
    r"triggers|launch|launches)\b"
)
_ON = r"(?:true|on|yes|1|enabled|switched\s+on|turned\s+on)"
_SET = r"`?\s*(?:(?:[:=]|\s+set\s+to|\s+to|\s+as)\s*[`\"']?|\s+)" + _ON + r"\b"
_REACH = 120  # characters after the run in which an input may be set


def forced_run(text: str, inputs: Collection[str]) -> bool:
    """Does ``text`` (lower case) run a tool with one of ``inputs`` set ("with upload_report enabled")?"""
    if not inputs:
        return False
    run = _RUN.search(text)
    if run is None:
        return False
    window = text[run.end() : run.end() + _REACH]
    return any(re.search(r"(?<![\w.])" + re.escape(name) + _SET, window) for name in inputs)
