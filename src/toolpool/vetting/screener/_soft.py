"""Weak signals: urgency, steering, links, length, padding. Each is normal alone."""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._vocab import EMAIL, RAW_IP_URL, URL, vocab

__all__ = ["SHOUTS", "VOCABS", "soft_findings"]

_SHOUTS = frozenset(
    {"IMPORTANT", "CRITICAL", "MANDATORY", "REQUIRED", "URGENT", "WARNING", "ATTENTION", "MUST", "NEVER"}
    | {"ALWAYS", "STOP", "NOW", "IMMEDIATELY"}
)
_CAPITALS = compiled(r"[A-Z]{3,}")
_ALARMS = ("\u26a0", "\U0001f6a8", "\u2757", "\u203c", "!!")
_MUST = vocab(
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to)\b|\bmust\s+(?:always|never|first)\b|"
    r"\bmandatory\b",
    "must|should|need to|have to|required|mandatory",
)
_ALWAYS_NEVER = vocab(r"\b(?:always|never)\b", "always|never")
# The word lists and shouted words ``soft_findings`` looks for (``_plain`` must know them all).
VOCABS = (_MUST, _ALWAYS_NEVER)
SHOUTS = _SHOUTS
_PADDING = compiled(r"[ \t\u00a0\u3000]{120,}|(?:\n[ \t]*){12,}")
_LONG = ((6000, 1.0), (3000, 0.67), (1500, 0.33))


def soft_findings(doc: Doc) -> Iterator[Finding]:
    text = doc.text
    shouts = [m for m in _CAPITALS.finditer(text) if m.group() in _SHOUTS]
    alarms = sum(text.count(alarm) for alarm in _ALARMS)
    if shouts or alarms:
        at = shouts[0].start() if shouts else min(i for i in (text.find(a) for a in _ALARMS) if i >= 0)
        yield Finding("urgency", doc.where(at), 1.0 if len(shouts) + alarms >= 3 else 0.67)
    for words, signal in ((_MUST, "must_directive"), (_ALWAYS_NEVER, "always_never")):
        match = next(doc.finditer(words), None)
        if match:
            yield Finding(signal, doc.where(match.start()))
    padding = _PADDING.search(text)
    if padding:
        yield Finding("padding", doc.where(padding.start()))
    if "://" in text:
        urls = list(URL.finditer(text))
        if urls:
            yield Finding("urls", doc.where(urls[0].start()), 1.0 if len(urls) >= 3 else 0.67)
        for match in RAW_IP_URL.finditer(text):
            yield Finding("raw_ip_url", doc.where(match.start()))
    if "@" in text:
        email = EMAIL.search(text)
        if email:
            yield Finding("emails", doc.where(email.start()))
    for part in doc.parts:
        for size, strength in _LONG:
            if len(part.text) > size:
                yield Finding("long_text", part.where, strength)
                break
