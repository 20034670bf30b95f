"""Reading the judge's reply, strictly: one JSON object ``{"verdict": "drop" | "pass",
"reasons": [text, ...]}`` and nothing else (a single Markdown code fence around it is
tolerated, as models add one unasked). Anything else is a problem, never a guess: the rules'
verdict then stands.

The reasons are a model's words about untrusted text, so they are untrusted too: escape and
control characters removed, whitespace folded, each one and their number bounded.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from toolpool.agent._messages import ModelReply
from toolpool.calls import sanitize
from toolpool.vetting.judge._values import Judgement

__all__ = ["MAX_REASONS", "MAX_REASON_CHARS", "read_verdict", "safe_reason"]

MAX_REASONS: Final = 5
MAX_REASON_CHARS: Final = 240
# The longest reply read at all: a verdict with five bounded reasons is far shorter.
_MAX_REPLY_CHARS: Final = 8000
_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL | re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_KEYS: Final = frozenset({"verdict", "reasons"})


def read_verdict(reply: ModelReply) -> Judgement | str:
    """The judgement in ``reply``, or what is wrong with it (local text)."""
    if reply.tool_calls:
        return "the reply called a tool"
    text = reply.text.strip()
    if len(text) > _MAX_REPLY_CHARS:
        return f"the reply is longer than {_MAX_REPLY_CHARS} characters"
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "the reply is not a JSON object"
    return _judgement(data)


def _judgement(data: Any) -> Judgement | str:
    if not isinstance(data, dict):
        return "the reply is not a JSON object"
    if set(data) != _KEYS:
        return 'the reply must have exactly the keys "verdict" and "reasons"'
    verdict, reasons = data["verdict"], data["reasons"]
    if verdict not in ("drop", "pass"):
        return 'the verdict must be "drop" or "pass"'
    if not isinstance(reasons, list) or not all(isinstance(reason, str) for reason in reasons):
        return "the reasons must be a list of strings"
    kept = tuple(filter(None, (safe_reason(reason) for reason in reasons[:MAX_REASONS])))
    return Judgement(drop=verdict == "drop", reasons=kept)


def safe_reason(text: str) -> str:
    """``text`` (a model's words) as safe to store and show: no escape or control characters,
    one line, at most ``MAX_REASON_CHARS`` characters."""
    line = _SPACES.sub(" ", sanitize(text)).strip()
    line = "".join(char for char in line if char.isprintable())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "\u2026"
